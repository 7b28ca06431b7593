import sys,statistics as st
from gets import gets
for f in sys.argv[1:]:
    rows=gets(f)
    out=[]
    for k,fn in (('body',lambda r:r[1]),('body-late',lambda r:r[1]-r[2]),('waited',lambda r:r[3])):
        ps=[]
        for end in range(64,len(rows),16):
            w=rows[end-64:end]
            ps.append(st.median([(25+fn(r))/(25+5*r[0]) for r in w])-1)
        out.append(f"{k}: busy {sum(p>0.1 for p in ps)/len(ps):.2f} med {st.median(ps):.3f}")
    print(f, ' | '.join(out))
