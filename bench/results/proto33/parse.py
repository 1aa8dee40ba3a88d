import re, sys, collections
t = collections.defaultdict(dict); knob = None
for line in open(sys.argv[1]):
    if line.startswith('## '): knob = line[3:].split(',')[0].strip(); continue
    mm = re.match(r'(\w+)\s+\((\d+), (\d+)\)\s+axis \d:\s+([\d.]+) us', line)
    if mm and knob:
        key = (mm.group(1), int(mm.group(3)))
        t[key].setdefault(knob, []).append(float(mm.group(4)))
torch = {}
try:
    for line in open(sys.argv[2]):
        mm = re.match(r'(\w+)\s+(\d+)x(\d+)\s+axis \d: eager\s+([\d.]+) us.*torch.compile\s+([\d.]+) us', line)
        if mm: torch[(mm.group(1), int(mm.group(3)))] = float(mm.group(5))
except FileNotFoundError: pass
knobs = sorted({k for v in t.values() for k in v})
print('%-12s %6s ' % ('expr', 'm') + ' '.join('%22s' % k for k in knobs) + ' %10s' % 'torch')
for key in t:
    print('%-12s %6d ' % key + ' '.join('%22.1f' % min(t[key].get(k, [0])) for k in knobs) + ' %10s' % (('%.1f' % torch[key]) if key in torch else '-'))
