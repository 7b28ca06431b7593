#!/usr/bin/env python3
"""A client of `warp serve` in the standard library only (urllib).

    python3 examples/serve/client.py http://127.0.0.1:8080 0.5,1,1.5,... [--k 10] [--nprobe 16]
        [--method warp] [--token-file FILE]

prints the neighbour ids of one query, one JSON line. As a module:

    from client import WarpClient
    c = WarpClient("http://127.0.0.1:8080")
    c.search([0.5, 1.0, ...], k=10)["neighbors"]   # [{"id": 43, "distance": 1.25}, ...]
    c.search_batch([[...], [...]])                 # {"generation": ..., "results": [...]}
    c.index()                                      # n, dim, metric, nlist, kind, layout, generation

A refused request raises WarpError with the HTTP status, the field at fault
and the server's one-line message; a 503 carries retry_after (seconds).
"""
import argparse
import json
import sys
import urllib.error
import urllib.request


class WarpError(Exception):
    """A request the server refused: status, field (or None), message, retry_after."""

    def __init__(self, status, field, message, retry_after=None):
        super().__init__(f"{status}: {message}")
        self.status, self.field, self.message, self.retry_after = status, field, message, retry_after


class WarpClient:
    """`warp serve` over HTTP/1.1; `timeout` bounds every request (seconds)."""

    def __init__(self, base_url, token=None, timeout=30.0):
        self.base = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            try:
                err = json.load(e)
            except ValueError:
                err = {"error": e.reason, "field": None}
            retry = e.headers.get("Retry-After")
            raise WarpError(e.code, err.get("field"), err.get("error"),
                            int(retry) if retry and retry.isdigit() else None) from None

    def search(self, vector, k=None, nprobe=None, method=None, deadline_ms=None, explain=False):
        """One query: {"neighbors": [{"id", "distance"}], "stats": {...}, "generation"}."""
        body = {"vector": list(vector), "explain": explain}
        for key, value in (("k", k), ("nprobe", nprobe), ("method", method), ("deadline_ms", deadline_ms)):
            if value is not None:
                body[key] = value
        return self._call("POST", "/v1/search", body)

    def search_batch(self, vectors, **params):
        """Several queries, answered in order: {"generation", "results": [...]}."""
        body = {"vectors": [list(v) for v in vectors]}
        body.update({k: v for k, v in params.items() if v is not None})
        return self._call("POST", "/v1/search", body)

    def index(self):
        """What is served: n, dim, metric, nlist, kind, layout, generation."""
        return self._call("GET", "/v1/index")


def main():
    p = argparse.ArgumentParser(description="Query warp serve; prints the neighbour ids.")
    p.add_argument("url")
    p.add_argument("vector", help="comma-separated values")
    p.add_argument("--k", type=int)
    p.add_argument("--nprobe", type=int)
    p.add_argument("--method")
    p.add_argument("--token-file")
    a = p.parse_args()
    token = open(a.token_file).read().strip() if a.token_file else None
    client = WarpClient(a.url, token=token)
    try:
        answer = client.search([float(x) for x in a.vector.split(",")], k=a.k, nprobe=a.nprobe, method=a.method)
    except WarpError as e:
        sys.exit(f"error: {e}")
    print(json.dumps([n["id"] for n in answer["neighbors"]]))


if __name__ == "__main__":
    main()
