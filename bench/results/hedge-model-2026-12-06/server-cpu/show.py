import json,sys,glob
for f in sorted(sys.argv[1:]):
    d=json.load(open(f))
    rows=d['rows'] if isinstance(d,dict) and 'rows' in d else d
    for r in rows:
        l=r.get('load') or {}
        print(f.split('/')[-1][:-5], r['policy'][:6], 'qps %.1f gets %.2f KiB %.0f'%(r['qps'],r['gets_per_query'],r['bytes_per_query']/1024), 'beta',l.get('cpu_ms_per_mib'),'alpha',l.get('cpu_ms_per_get'),'kappa',l.get('cpu_cores_available'),'srv',l.get('cpu_server_processes'))
