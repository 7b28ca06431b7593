import re,sys,statistics as st
for f in sys.argv[1:]:
    rows=[]
    for line in open(f):
        if 'GET observed' not in line: continue
        d=dict(re.findall(r'(\w+)=([0-9.e+-]+)',line))
        try: rows.append((float(d['len']),float(d['first_byte_ms']),float(d['latency_ms']),float(d['waited_ms']),float(d['late_ms'])))
        except KeyError: pass
    body=[r[2]-r[1] for r in rows]; w=[r[3] for r in rows]; l=[r[4] for r in rows]
    mib=sum(r[0] for r in rows)/2**20
    print(f"{f}: n={len(rows)} MiB={mib:.0f} body_sum={sum(body):.0f} waited={sum(w):.0f} ({sum(w)/sum(body):.2f}) late={sum(l):.0f} ({sum(l)/sum(body):.2f}) median body={st.median(body):.2f} waited={st.median(w):.2f} late={st.median(l):.2f}")
    # slope body vs size crude
    refresh=[line for line in open(f) if 'load refresh' in line]
    print("  refreshes", len(refresh))
