import re, datetime
def stamp_ms(line):
    # the subscriber's timestamp: when the GET completed
    ts = line.split()[0].rstrip('Z')
    return datetime.datetime.fromisoformat(ts).timestamp() * 1000.0
import re,sys,statistics as st, glob, os
def parse(f):
    ev=[]
    for l in open(f):
        if 'GET observed' in l:
            d=dict(re.findall(r'(\w+)=([\d.e+-]+)',l.split('GET observed')[1]))
            ev.append(('g',int(d['len'])/1048576,float(d['first_byte_ms']),float(d['latency_ms']),stamp_ms(l)))
        elif 'load refresh' in l:
            m=dict(re.findall(r'(\w+)=(Some\([\d.e+-]+\)|None|[\d.e+-]+)',l))
            def v(k):
                x=m.get(k)
                if x is None or x=='None': return None
                return float(x[5:-1]) if x.startswith('Some') else float(x)
            ev.append(('r',v('pressure'),v('delivered_mib_s'),v('capacity_mib_s'),v('busy_streak')))
    return ev
def agg_q(win,qs,minb=0.05):
    evs=[]
    for L,fb,lat,done in win:
        b=lat-fb
        if b<minb: continue
        r=L/b*1000
        evs.append((done-b,r)); evs.append((done,-r))
    evs.sort()
    segs=[];r=0;last=None
    for t,d in evs:
        if last is not None and t>last: segs.append((r,t-last))
        r+=d; last=t
    if not segs: return [None]*len(qs)
    segs.sort(); tw=sum(w for _,w in segs)
    out=[]
    for q in qs:
        acc=0
        for v,w in segs:
            acc+=w
            if acc>=q*tw: out.append(v); break
    return out
QS=[0.75,0.9,0.95]
def run(f,W=256):
    ev=parse(f)
    gets=[];busy={q:[] for q in QS}; streak=0; lastC=None; C={q:None for q in QS}
    for e in ev:
        if e[0]=='g': gets.append(e[1:]); continue
        _,p,deliv,c,bs=e
        lastC=c
        if p is None or p<=0.10: streak=0; continue
        streak+=1
        if streak<2: continue
        vals=agg_q(gets[-W:],QS)
        for q,v in zip(QS,vals):
            if v is None: continue
            busy[q]=(busy[q]+[v])[-15:]
            C[q]=st.median(busy[q])
    # final C from the last refresh's after-state isn't logged; use last logged 'C before'
    return lastC, C, len(gets)
for d in sys.argv[1:]:
    for f in sorted(glob.glob(d+'/*.err')):
        lastC,C,n=run(f)
        name=os.path.basename(f)[:-4]
        print(f"{d.split('/')[-1]:5} {name:32} n={n:5} C_now={lastC and round(lastC)}  " + "  ".join(f"q{int(q*100)}={C[q] and round(C[q])}" for q in QS))
