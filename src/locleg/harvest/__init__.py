"""Harvesting sources: one module per publishing platform behind one interface, and the polite,
resumable scheduler they all run on.

    platform.py   the interface and the registry of platform modules (sapl, ...)
    listed.py     the norms a platform lists, stored the same way for every platform
    engine.py     the scheduler, composed of the parts below and imported by no platform
    politeness.py per-host delay, robots.txt, Retry-After pauses, backoff, parking
    workers.py    the frontier walked: hosts claimed, one worker per host
    files.py      the originals fetched (conditional GETs) and stored in batches
    cycles.py     sources due, cycles started and finished, the run's report
    config.py     the settings of a run (HarvestConfig)
    frontier.py   the persistent frontier (pending requests per host) and host state
    net.py        HTTP: honest User-Agent, resolver override, SSRF guard, size caps
    sapl.py       SAPL 3.1's REST API: probing, listing, anexos, vínculos
    discover.py   finding the SAPL instances of a UF

The SAPL stand-in of the tests, benches and the demo lives apart, in locleg.fixtures.
"""
