import re,sys
for m in [31,129,257,1001]:
    s=open(f'a{m}.cl').read()
    b=s.replace('const long m)', 'const long m_)').replace('const long m,','const long m_,')
    i=b.index('{', b.index('void k('))
    b=b[:i+1]+f'\n  const long m = {m}L;'+b[i+1:]
    open(f'b{m}.cl','w').write(b)
    # c: 32-bit indexes in the body
    j=b.index('{', b.index('void k('))
    body=b[j:]
    body=re.sub(r'\blong\b','int',body)
    open(f'c{m}.cl','w').write(b[:j]+body)
