"""Root conftest: doctests in exact/, proofs/, reports/ get the same precision-restoring fixture."""

import pytest


@pytest.fixture(autouse=True)
def _restore_flint_precision_doctests():
    from flint import ctx

    old = ctx.prec
    yield
    ctx.prec = old
