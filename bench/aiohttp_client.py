#!/usr/bin/env python3
"""A minimal Python asyncio/aiohttp streaming client, the yardstick goodput's
client CPU is compared with (scripts/bench.sh). It does what Python harnesses
(GuideLLM, vllm bench serve, AIPerf) do per token: read SSE lines, json.loads
each chunk, stamp it with time.perf_counter(). Run with Debian's python3-aiohttp.

Usage: aiohttp_client.py URL MODEL CONCURRENCY REQUESTS MAX_TOKENS
Prints one JSON line: requests, errors, tokens, cpu_seconds, wall_seconds.
"""
import asyncio
import json
import os
import resource
import sys
import time

import aiohttp


async def one(session, url, model, max_tokens, stats):
    body = {
        "model": model,
        "messages": [{"role": "user", "content": "Tell me a story about benchmarks."}],
        "stream": True,
        "stream_options": {"include_usage": True, "continuous_usage_stats": True},
        "max_completion_tokens": max_tokens,
        "ignore_eos": True,
    }
    stamps = []
    start = time.perf_counter()
    try:
        async with session.post(url, json=body) as resp:
            if resp.status != 200:
                stats["errors"] += 1
                await resp.read()
                return
            async for raw in resp.content:
                line = raw.strip()
                if not line.startswith(b"data:"):
                    continue
                data = line[5:].strip()
                if data == b"[DONE]":
                    break
                chunk = json.loads(data)
                choices = chunk.get("choices") or []
                if choices and (choices[0].get("delta") or {}).get("content"):
                    stamps.append(time.perf_counter())
    except aiohttp.ClientError:
        stats["errors"] += 1
        return
    stats["requests"] += 1
    stats["tokens"] += len(stamps)
    if stamps:
        stats["ttft_sum"] += stamps[0] - start


async def main():
    url, model = sys.argv[1].rstrip("/") + "/v1/chat/completions", sys.argv[2]
    conc, total, max_tokens = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    stats = {"requests": 0, "errors": 0, "tokens": 0, "ttft_sum": 0.0}
    queue = asyncio.Queue()
    for i in range(total):
        queue.put_nowait(i)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None)) as session:
        async def worker():
            while True:
                try:
                    queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                await one(session, url, model, max_tokens, stats)

        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(conc)))
        wall = time.perf_counter() - t0
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    print(json.dumps({"client": "python-aiohttp", "aiohttp": aiohttp.__version__, "python": sys.version.split()[0],
                      "requests": stats["requests"], "errors": stats["errors"], "tokens": stats["tokens"],
                      "cpu_seconds": round(cpu, 4), "wall_seconds": round(wall, 4), "pid": os.getpid()}))


if __name__ == "__main__":
    asyncio.run(main())
