"""Builders of the lamport dialect's program-level ops, its mailbox type and
its attributes. Each op builder takes the op's operands in the order of its
assembly, its attributes as keywords (None leaves an attribute out, so the
op's default applies), `loc` (default: the current location, else the line
of the calling script) and `ip` (default: the current insertion point), and
returns the Operation. Nothing is verified until Module.verify().

    from lamport.dialects import lamport as lp
    mailbox = lp.MailboxType.get(tp=8, capacity=16, width=8192)
    lp.publish_rows(rows, mb, pdl=True)
"""

from .. import _lamport
from ..ir import Operation, _location

__all__ = [
    "MailboxType", "SumOrderAttr", "TacticAttr", "TransportAttr",
    "all_gather", "all_reduce", "all_reduce_dual_norm", "dual_norm",
    "gemm_publish", "poll_rows", "publish_rows",
]


class MailboxType:
    """`!lamport.mailbox<tp, capacity, width>`."""

    @staticmethod
    def get(tp, capacity, width, loc=None):
        """The mailbox type; raises MLIRError (with the location) when the
        parameters are not a mailbox's (tp 1..64, width a multiple of 8...)."""
        return _lamport.mailbox_type(tp, capacity, width, _location(loc))

    @staticmethod
    def isinstance(type):
        return _lamport.is_mailbox_type(type)

    @staticmethod
    def parameters(type):
        """(tp, capacity, width) of a mailbox type."""
        return _lamport.mailbox_type_parameters(type)


class TacticAttr:
    """`#lamport.tactic<...>`: the launch shape of gemm_publish
    (docs/design/gemm.md); token_tiles[m - 1] is the token tile for m
    tokens; early_reads None leaves the knob to the generator's rule."""

    @staticmethod
    def get(*, splits, kw, accs, token_tiles, tiles=None, passes=None,
            min_ctas_per_sm=None, early_dependents=None, late_chunks=None,
            pipeline=None, stages=None, stage_bytes=None,
            producer_lanes=None, early_reads=None, context=None):
        """A knob left as None takes the attribute's default (the dialect's
        docs, `#lamport.tactic`)."""
        return _lamport.tactic_attr(
            splits, kw, accs, list(token_tiles), tiles, passes,
            min_ctas_per_sm,
            None if early_dependents is None else bool(early_dependents),
            late_chunks, pipeline, stages, stage_bytes, producer_lanes,
            early_reads, context)


class TransportAttr:
    @staticmethod
    def get(name, context=None):
        """`#lamport.transport<multicast|unicast>`."""
        return _lamport.transport_attr(name, context)


class SumOrderAttr:
    @staticmethod
    def get(name, context=None):
        """`#lamport.sum_order<rank_ascending|pairwise>`."""
        return _lamport.sum_order_attr(name, context)


def _create(name, operands, attributes, loc, ip, segments=None):
    loc = _location(loc)
    context = loc.context
    named = {}
    for key, value in attributes.items():
        if value is None or value is False:
            continue
        named[key] = _attribute(key, value, context)
    if segments is not None:
        named["operandSegmentSizes"] = _lamport.dense_i32_array_attr(
            segments, context)
    return Operation.create(name, operands=[v for v in operands if v is not None],
                            attributes=named, loc=loc, ip=ip)


def _attribute(key, value, context):
    """The attribute `key` of a program op from its Python value."""
    if isinstance(value, _lamport.Attribute):
        return value
    if value is True:
        return _lamport.unit_attr(context)
    if key == "transport":
        return _lamport.transport_attr(value, context)
    if key == "sum_order":
        return _lamport.sum_order_attr(value, context)
    if key == "timeout_ns":
        return _lamport.i64_attr(value, context)
    if key == "eps":
        return _lamport.f32_attr(value, context)
    if key == "tactics":
        return _lamport.array_attr(list(value), context)
    raise TypeError(f"{key}: expected an Attribute, got {type(value).__name__}")


def _present(value):
    return 0 if value is None else 1


def gemm_publish(x, weight, y, *, mailbox=None, ticket=None, tactics=None,
                 transport=None, pdl=False, loc=None, ip=None):
    """`lamport.gemm_publish x, weight into y [mailbox m] [ticket t]
    tactic(...)`: y = x * weight^T with a publishing epilogue. `tactics`
    is a list of TacticAttr, one per range of M."""
    return _create("lamport.gemm_publish", [x, weight, y, mailbox, ticket],
                   {"tactics": tactics, "transport": transport, "pdl": pdl},
                   loc, ip, [1, 1, 1, _present(mailbox), _present(ticket)])


def publish_rows(rows, mailbox, *, transport=None, release_before=False,
                 pdl=False, loc=None, ip=None):
    """`lamport.publish_rows rows into mailbox`."""
    return _create("lamport.publish_rows", [rows, mailbox],
                   {"transport": transport, "release_before": release_before,
                    "pdl": pdl}, loc, ip)


def poll_rows(mailbox, out, *, timeout_ns=None, pdl=False, loc=None,
              ip=None):
    """`lamport.poll_rows mailbox into out`: every rank's rows."""
    return _create("lamport.poll_rows", [mailbox, out],
                   {"timeout_ns": timeout_ns, "pdl": pdl}, loc, ip)


def all_reduce(mailbox, out, *, sum_order=None, timeout_ns=None, pdl=False,
               loc=None, ip=None):
    """`lamport.all_reduce mailbox into out`."""
    return _create("lamport.all_reduce", [mailbox, out],
                   {"sum_order": sum_order, "timeout_ns": timeout_ns,
                    "pdl": pdl}, loc, ip)


def all_reduce_dual_norm(mailbox, stream, alpha, beta, next_weight, out, *,
                         post_weight=None, partial=None, eps=None,
                         sum_order=None, timeout_ns=None, transport=None,
                         pdl=False, loc=None, ip=None):
    """`lamport.all_reduce_dual_norm mailbox [publishing(partial)], stream
    gates(alpha, beta) [post_weight w] next_weight nw into out`."""
    return _create(
        "lamport.all_reduce_dual_norm",
        [mailbox, partial, stream, alpha, beta, post_weight, next_weight, out],
        {"eps": eps, "sum_order": sum_order, "timeout_ns": timeout_ns,
         "transport": transport, "pdl": pdl}, loc, ip,
        [1, _present(partial), 1, 1, 1, _present(post_weight), 1, 1])


def dual_norm(reduced, stream, alpha, beta, next_weight, out, *,
              post_weight=None, eps=None, pdl=False, loc=None, ip=None):
    """`lamport.dual_norm reduced, stream gates(alpha, beta) [post_weight w]
    next_weight nw into out`: the dual norm of an already reduced input."""
    return _create("lamport.dual_norm",
                   [reduced, stream, alpha, beta, post_weight, next_weight,
                    out], {"eps": eps, "pdl": pdl}, loc, ip)


def all_gather(mailbox, out, *, timeout_ns=None, pdl=False, loc=None,
               ip=None):
    """`lamport.all_gather mailbox into out`."""
    return _create("lamport.all_gather", [mailbox, out],
                   {"timeout_ns": timeout_ns, "pdl": pdl}, loc, ip)
