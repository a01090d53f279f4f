"""The explorer's routes, one module per area; every one of them only reads."""

from fastapi import APIRouter

from . import corpus, documents, operations, search

router = APIRouter()
for module in (corpus, documents, search, operations):
    router.include_router(module.router)

__all__ = ["router"]
