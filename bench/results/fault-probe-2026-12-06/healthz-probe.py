import json, sys, threading, time, urllib.request
addr = sys.argv[1]
body = json.dumps({"vector": [0.5]*8, "nprobe": 4096, "k_max": 1048576, "method": "exact"}).encode()
res = []
def one():
    t = time.time()
    try:
        r = urllib.request.urlopen(urllib.request.Request(f"http://{addr}/v1/search", data=body, headers={"content-type": "application/json"}), timeout=120)
        res.append((r.status, time.time() - t))
    except urllib.error.HTTPError as e:
        res.append((e.code, time.time() - t))
    except Exception as e:
        res.append((str(e)[:40], time.time() - t))
ts = [threading.Thread(target=one) for _ in range(64)]
t0 = time.time()
for t in ts: t.start()
time.sleep(1)
hz = []
for _ in range(5):
    t = time.time()
    try:
        urllib.request.urlopen(f"http://{addr}/healthz", timeout=10).read()
        hz.append(round((time.time() - t) * 1000, 1))
    except Exception as e:
        hz.append(str(e)[:30])
    time.sleep(0.5)
print("healthz ms:", hz)
for t in ts: t.join()
from collections import Counter
print("statuses:", Counter(r[0] for r in res), "max s:", round(max(r[1] for r in res), 1), "total s:", round(time.time() - t0, 1))
