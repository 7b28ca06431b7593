import re,sys,statistics as st
from datetime import datetime
def ts(s): return datetime.strptime(s[:26],"%Y-%m-%dT%H:%M:%S.%f").timestamp()*1000
for f in sys.argv[1:]:
    rows=[];press=[]
    for line in open(f):
        if 'GET observed' in line:
            d=dict(re.findall(r'(\w+)=([0-9.e+-]+)',line))
            rows.append((ts(line),float(d['len'])/2**20,float(d['latency_ms'])-float(d['first_byte_ms'])))
    span=[];uni=[];ratio=[]
    for end in range(64,len(rows),16):
        w=rows[end-64:end]
        sp=w[-1][0]-w[0][0]
        if sp<20: continue
        r_span=sum(x[1] for x in w[1:])/sp*1000
        iv=sorted((d-b,d) for d,_,b in w)
        tot=0;cs,ce=iv[0]
        for s,e in iv[1:]:
            if s>ce: tot+=ce-cs;cs,ce=s,e
            else: ce=max(ce,e)
        tot+=ce-cs
        r_u=sum(x[1] for x in w)/tot*1000 if tot>0 else float('nan')
        span.append(r_span);uni.append(r_u);ratio.append(tot/sp)
    q=lambda v:[round(x) for x in st.quantiles(v,n=10)[::2]]
    print(f, "span dec", q(span), "union dec", q(uni), "busy frac med %.2f"%st.median(ratio))
