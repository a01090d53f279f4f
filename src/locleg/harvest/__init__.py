"""Harvesting sources: SAPL (sapl.py) and the polite, resumable scheduler it runs on.

    net.py        HTTP: honest User-Agent, resolver override, SSRF guard, size caps
    frontier.py   the persistent frontier (pending requests per host) and host state
    engine.py     the scheduler: per-host delay, robots.txt, backoff, parking, batching
    sapl.py       SAPL 3.1: probing, listing, parsing, storing norms/documents/vínculos
    discover.py   finding the SAPL instances of a UF

The SAPL stand-in of the tests, benches and the demo lives apart, in locleg.fixtures.
"""
