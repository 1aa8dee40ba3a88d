# Makes the prototypes' variants from a row kernel a<m>.cl (dump.cpp's output under an
# H200's row layout, with `k` its name), for each m given:
#   b<m>.cl  the row length a constant: `const long m = <m>L;`, the argument renamed m_
#   c<m>.cl  b with every `long` of the body `int` (32-bit indexes)
#   d<m>.cl  b in groups of 256 (16 rows a group; rows of 129 and 257, 8 rows of 16)
#   e<m>.cl  b dividing by IEEE division, without the reciprocal and its fallback loop
#   python3 variants.py 31 65 129 257 1001
import re, sys
for m in map(int, sys.argv[1:]):
    s = open(f'a{m}.cl').read()
    b = s.replace('const long m)', 'const long m_)').replace('const long m,', 'const long m_,')
    i = b.index('{', b.index('void k('))
    b = b[:i + 1] + f'\n  const long m = {m}L;' + b[i + 1:]
    open(f'b{m}.cl', 'w').write(b)
    j = b.index('{', b.index('void k('))
    c = b[:j] + re.sub(r'\blong\b', 'int', b[j:])
    open(f'c{m}.cl', 'w').write(c.replace('min(sb_ + 64 * m, n * m)', 'min(sb_ + 64 * m, (int)(n * m))'))
    d = b.replace('reqd_work_group_size(128', 'reqd_work_group_size(256').replace('[128]', '[256]')
    open(f'd{m}.cl', 'w').write(d.replace('get_group_id(0) * 8 +', 'get_group_id(0) * 16 +'))
    if 'fcl_rdiv_float(v3, v4, &rq_)' in b:
        e = b.replace('fcl_rdiv_float(v3, v4, &rq_)', '((v3) / (v4))')
        k = e.index('  if (rq_ > 0xd3000000u)')
        e = e[:k] + e[e.index('\n}\n', k) + 1:]
        open(f'e{m}.cl', 'w').write(e)
