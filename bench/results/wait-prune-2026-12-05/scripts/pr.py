import re,sys,statistics as st
for f in sys.argv[1:]:
    rows=[]
    for line in open(f):
        if 'GET observed' in line:
            d=dict(re.findall(r'(\w+)=([0-9.e+-]+)',line))
            mib=float(d['len'])/2**20; b=float(d['latency_ms'])-float(d['first_byte_ms'])
            rows.append((mib,b,float(d['late_ms']),float(d['waited_ms'])))
    out=[]
    for k,fn in (('body',lambda r:r[1]),('body-late',lambda r:r[1]-r[2]),('waited',lambda r:r[3])):
        ps=[]
        for end in range(64,len(rows),16):
            w=rows[end-64:end]
            ps.append(st.median([(25+fn(r))/(25+5*r[0]) for r in w])-1)
        out.append(f"{k}: busy {sum(p>0.1 for p in ps)/len(ps):.2f} med {st.median(ps):.3f}")
    print(f, ' | '.join(out))
