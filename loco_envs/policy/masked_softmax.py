"""The softmax over each row's legal actions and its gradient, compiled: one pass a row.

Why. The trainer's masked distribution (``train.networks.MaskedCategorical``) needs, for every
row of logits, the log-probabilities and probabilities over the legal actions and their
entropy, and in the update their gradient. In torch each is a chain of a dozen operations over
the whole ``[N, A]`` batch (LOCO: 2,048 x 242 a minibatch), each a pass over memory and, on
two or more threads, a call on torch's OpenMP threads, which sleep between calls after a
brief spin (``loco_envs.compiled.SPIN_COUNT``). Here a row is read and written once,
the rows shared among numba's threads: 1.2 ms against 4.1 ms for the forward pass of 2,048 x 242
on two threads here.

Conventions (those of the torch version they replace): ``legal`` is 0/1 in float32 (the forward
pass takes any nonzero as legal, the gradient is multiplied by the value: pass 0 and 1 only); an
illegal action gets probability 0, log-probability :data:`ILLEGAL_LOG_PROB` and no gradient; a
row with no legal action or a NaN logit gets NaN everywhere, and a legal ``-inf`` logit a NaN
entropy, as in torch.
"""

from __future__ import annotations

import numba
import numpy as np

import loco_envs.compiled  # noqa: F401  (numba's cache folder, before the first njit)

__all__ = ["ILLEGAL_LOG_PROB", "masked_log_softmax", "masked_log_softmax_grad"]

#: The log-probability an illegal action is given (sb3-contrib's masked logit).
ILLEGAL_LOG_PROB = -1e8


def masked_log_softmax(logits: np.ndarray, legal: np.ndarray, threads: int = 1
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(log_probs [..., A], probs [..., A], entropy [...])`` over the legal actions of float32
    ``logits [..., A]`` (``legal``: 0/1, float32, the same shape), on ``threads`` of numba's
    threads."""
    shape = np.shape(logits)
    logits, legal = _rows(logits), _rows(legal)
    log_probs, probs = np.empty_like(logits), np.empty_like(logits)
    entropy = np.empty(logits.shape[0], np.float32)
    _on_threads(threads, _forward, logits, legal, log_probs, probs, entropy)
    return log_probs.reshape(shape), probs.reshape(shape), entropy.reshape(shape[:-1])


def masked_log_softmax_grad(grad_log_probs: np.ndarray | None, grad_probs: np.ndarray | None,
                            grad_entropy: np.ndarray | None, probs: np.ndarray,
                            legal: np.ndarray, log_probs: np.ndarray, entropy: np.ndarray,
                            threads: int = 1) -> np.ndarray:
    """The gradient of the logits from those of :func:`masked_log_softmax`'s three results
    (``None``: none reaches that result):

    - ``d log p_i / d z_k = legal_i (delta_ik - p_k)``,
    - ``d p_i / d z_k = p_i (delta_ik - p_k)``,
    - ``d H / d z_k = -p_k (log p_k + H)``.
    """
    shape = np.shape(probs)
    probs = _rows(probs)
    no_rows = np.zeros((0, 0), np.float32)
    grad = np.empty_like(probs)
    _on_threads(threads, _backward,
                no_rows if grad_log_probs is None else _rows(grad_log_probs),
                no_rows if grad_probs is None else _rows(grad_probs),
                np.zeros(0, np.float32) if grad_entropy is None else _values(grad_entropy),
                probs, _rows(legal), _rows(log_probs), _values(entropy), grad)
    return grad.reshape(shape)


def _rows(array: np.ndarray) -> np.ndarray:
    """``[..., A]`` as contiguous float32 rows ``[N, A]``."""
    array = np.ascontiguousarray(array, np.float32)
    return array.reshape(-1, array.shape[-1])


def _values(array: np.ndarray) -> np.ndarray:
    """One value a row (``[...]``) as a contiguous float32 vector ``[N]``."""
    return np.ascontiguousarray(array, np.float32).ravel()


def _on_threads(threads: int, kernel, *args) -> None:  # noqa: ANN001
    previous = numba.get_num_threads()
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    try:
        kernel(*args)
    finally:
        numba.set_num_threads(previous)


@numba.njit(cache=True, parallel=True, nogil=True)
def _forward(logits: np.ndarray, legal: np.ndarray, log_probs: np.ndarray, probs: np.ndarray,
             entropy: np.ndarray) -> None:
    rows, actions = logits.shape
    for i in numba.prange(rows):
        z, ok = logits[i], legal[i]
        top = -np.inf
        broken = False
        for k in range(actions):
            broken |= z[k] != z[k]
            if ok[k] != 0 and z[k] > top:
                top = z[k]
        total = np.float32(0.0)
        for k in range(actions):
            if ok[k] != 0:
                p = np.exp(z[k] - top)
                probs[i, k] = p
                total += p
            else:
                probs[i, k] = 0.0
        if broken or total == 0:  # a NaN logit, or nothing legal: no distribution
            log_probs[i, :] = np.nan
            probs[i, :] = np.nan
            entropy[i] = np.nan
            continue
        shift = top + np.log(total)
        h = np.float32(0.0)
        for k in range(actions):
            if ok[k] != 0:
                probs[i, k] /= total
                log_probs[i, k] = z[k] - shift
                h -= probs[i, k] * log_probs[i, k]
            else:
                log_probs[i, k] = ILLEGAL_LOG_PROB
        entropy[i] = h


@numba.njit(cache=True, parallel=True, nogil=True)
def _backward(grad_log_probs: np.ndarray, grad_probs: np.ndarray, grad_entropy: np.ndarray,
              probs: np.ndarray, legal: np.ndarray, log_probs: np.ndarray, entropy: np.ndarray,
              grad: np.ndarray) -> None:
    rows, actions = probs.shape
    with_log_probs, with_probs = grad_log_probs.size > 0, grad_probs.size > 0
    with_entropy = grad_entropy.size > 0
    for i in numba.prange(rows):
        p = probs[i]
        legal_sum = np.float32(0.0)
        prob_sum = np.float32(0.0)
        for k in range(actions):
            if with_log_probs:
                legal_sum += grad_log_probs[i, k] * legal[i, k]
            if with_probs:
                prob_sum += grad_probs[i, k] * p[k]
        for k in range(actions):
            g = np.float32(0.0)
            if with_log_probs:
                g += grad_log_probs[i, k] * legal[i, k] - p[k] * legal_sum
            if with_probs:
                g += (grad_probs[i, k] - prob_sum) * p[k]
            if with_entropy and p[k] != 0:
                g -= p[k] * (log_probs[i, k] + entropy[i]) * grad_entropy[i]
            grad[i, k] = g
