# `warp demo --json > quiet-N.json` / `hogs-N.json` per round (runs.log); run here, it
# reads rows.json, those files' rows gathered. Prints each run's warp / best fixed rule and
# the lead kept beside the loops, (hogs median - 1) / (quiet median - 1).
import json,glob,os,statistics as st
leads={}
runs=json.load(open('rows.json')) if os.path.exists('rows.json') else {f: json.load(open(f))['rows'] for f in sorted(glob.glob('*-[0-9].json'))}
for f,rows in sorted(runs.items()):
    cond=f.split('-')[0]
    for lay in sorted({r['layout'] for r in rows}):
        rs=[r for r in rows if r['layout']==lay]
        w=[r for r in rs if r['policy']=='warp'][0]
        b=max((r for r in rs if r['policy']!='warp'), key=lambda r:r['qps'])
        leads.setdefault((cond,lay),[]).append((w['qps']/b['qps'], b['policy'][:3], round(w['qps']), round(b['qps']), round(w['bytes_per_query']/1024), w['gets_per_query']))
for k,v in sorted(leads.items()):
    print(k, 'median', round(st.median(x[0] for x in v),3), [ (round(x[0],3),)+x[1:] for x in v])
for lay in sorted({k[1] for k in leads}):
    q=st.median(x[0] for x in leads[('quiet',lay)]); h=st.median(x[0] for x in leads[('hogs',lay)])
    print(lay, 'lead kept', round((h-1)/(q-1),2) if q>1 else 'quiet lead <= 0', 'quiet', round(q,3), 'hogs', round(h,3))
