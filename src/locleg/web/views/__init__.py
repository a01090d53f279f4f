"""The explorer's routes, one module per area; every one of them only reads."""

from fastapi import APIRouter

from . import citations, corpus, documents, exports, operations, search

router = APIRouter()
for module in (corpus, documents, citations, search, operations, exports):
    router.include_router(module.router)

__all__ = ["router"]
