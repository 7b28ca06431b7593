import json,sys,statistics
def ratios(f):
    d=json.load(open(f)); out={}
    for lay in sorted({r['layout'] for r in d['rows']}):
        rows=[r for r in d['rows'] if r['layout']==lay]
        w=[r['qps'] for r in rows if r['policy']=='warp'][0]
        best=max(r['qps'] for r in rows if r['policy']!='warp')
        out[lay]=w/best
    return out
q=[ratios(f'{sys.argv[1] if len(sys.argv) > 1 else "."}/quiet-{i}.json') for i in range(1,4)]
h=[ratios(f'{sys.argv[1] if len(sys.argv) > 1 else "."}/hogs-{i}.json') for i in range(1,4)]
for lay in q[0]:
    qs=[x[lay] for x in q]; hs=[x[lay] for x in h]
    lq=statistics.mean(qs)-1; lh=statistics.mean(hs)-1
    print(lay, 'quiet', ' '.join(f'{v:.3f}' for v in qs), 'hogs', ' '.join(f'{v:.3f}' for v in hs), f'kept {lh/lq:.2f}x')
