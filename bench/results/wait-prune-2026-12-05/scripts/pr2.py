import sys,statistics as st
from gets import gets
def sen(pts):
    s=[]
    for i in range(len(pts)):
        for j in range(i+1,len(pts)):
            dx=pts[j][0]-pts[i][0]
            if abs(dx)>=1/64: s.append((pts[j][1]-pts[i][1])/dx)
    if len(s)<32: return None
    s.sort(); n=len(s)
    # lower bound approx: rank n/2 - 1.96*sqrt(n*(..)) crude: use 2.5% of the central spread
    return s[max(0,int(n/2-1.96*(n**0.5)))]
for f in sys.argv[1:]:
    rows=gets(f)
    out=[]
    for k,fn in (('body',lambda r:r[1]),('body-late',lambda r:r[1]-r[2])):
        ps=[]
        for end in range(64,len(rows),16*4):
            w=rows[end-64:end]
            p=st.median([(25+fn(r))/(25+5*r[0]) for r in w])-1
            if p>0:
                s=sen([(r[0],fn(r)) for r in w])
                if s is not None:
                    p=min(p,st.median([max(s-5,0)*r[0]/(25+5*r[0]) for r in w]))
            ps.append(p)
        out.append(f"{k}: busy {sum(p>0.1 for p in ps)/len(ps):.2f} med {st.median(ps):.3f}")
    print(f, ' | '.join(out))
