import re,sys,collections,statistics as st
groups=[];cur=None
for l in open(sys.argv[1]):
    d=dict(re.findall(r'(\w+)=([^\s]+)',l.split('candidate',1)[1]))
    d={k:(float(v) if v not in ('inf',) else float('inf')) for k,v in d.items()}
    first = d['price']==1.0 and d['fixed_ms']==25.0 and (cur is None or d['calls']!=cur[0]['calls'] or len(cur)>=1 and any(c['price']>1 for c in cur) or True)
    # new group when price==1, fixed==25 and parallelism equals group's first p? simpler: start when previous candidate was a price>1 or a measured-fixed one, or calls changed
    if cur is None or d['calls']!=cur[-1]['calls'] or (d['price']==1.0 and d['fixed_ms']==25.0 and (cur[-1]['price']>1.0 or cur[-1]['fixed_ms']!=25.0) ) or (d['price']==1.0 and d['fixed_ms']==25.0 and d['parallelism']==cur[0]['parallelism'] and len(cur)>1):
        if cur: groups.append(cur)
        cur=[d]
    else: cur.append(d)
groups.append(cur)
groups=groups[len(groups)//5:]  # skip warmup-ish
calls=[g[0]['calls'] for g in groups]
print('plans',len(groups),'calls median',st.median(calls),'p10',sorted(calls)[len(calls)//10],'p90',sorted(calls)[9*len(calls)//10])
kinds=collections.Counter(); extra=[]; chosen_gets=[]; min_gets=[]
bind=collections.Counter()
for g in groups:
    best=min(range(len(g)),key=lambda i:(g[i]['cost'],i))
    c=g[best]
    kinds[(c['fixed_ms']!=25.0, c['price'], c['parallelism'])]+=1
    chosen_gets.append(c['gets']); min_gets.append(min(x['gets'] for x in g))
    Q=c['calls']; C=c['capacity_mib_s']; e=c['first_byte_excess_ms']
    link=Q*1000*c['bytes']/1048576/C if C!=float('inf') else 0
    io=Q*(c['w_ms']+c['gets']*e)/64
    crit=c['b_ms']+e
    bind[max([('crit',crit),('link',link),('io',io)],key=lambda t:t[1])[0]]+=1
print('chosen (measured_fixed?, price, P):',kinds.most_common(8))
print('mean chosen gets %.3f, mean fewest-gets candidate %.3f'%(st.mean(chosen_gets),st.mean(min_gets)))
print('binding term of chosen:',bind)
cs=[g[0]['capacity_mib_s'] for g in groups]; es=[g[0]['first_byte_excess_ms'] for g in groups]
print('C median',st.median(cs),'e median',st.median(es))
