"""Harvesting sources: one module per publishing platform behind one interface, and the polite,
resumable scheduler they all run on.

    platform.py   the interface and the registry of platform modules (sapl, ...)
    listed.py     the norms a platform lists, stored the same way for every platform
    engine.py     the scheduler: per-host delay, robots.txt, backoff, parking, files
    frontier.py   the persistent frontier (pending requests per host) and host state
    net.py        HTTP: honest User-Agent, resolver override, SSRF guard, size caps
    sapl.py       SAPL 3.1's REST API: probing, listing, anexos, vínculos
    discover.py   finding the SAPL instances of a UF

The SAPL stand-in of the tests, benches and the demo lives apart, in locleg.fixtures.
"""
