# p<bytes>_<v><m>.cl: kernel <v><m>.cl with a local array of <bytes> a group that
# nothing reads (n < 0 never holds), which caps the groups an SM holds at once.
#   python3 pad.py 65 129 257   (after variants.py, with a<m>.cl the argument form)
import sys
for m in map(int, sys.argv[1:]):
    for v in 'ab':
        s = open(f'{v}{m}.cl').read()
        for pad in (8192, 16384, 24576, 32768):
            i = s.index('{', s.index('void k('))
            t = s[:i + 1] + f'\n  __local float pad_[{pad // 4}];\n  if (n < 0) {{ pad_[get_local_id(0)] = 1.0f; out0[0] = pad_[(get_local_id(0) + 1) % {pad // 4}]; }}' + s[i + 1:]
            open(f'p{pad}_{v}{m}.cl', 'w').write(t)
