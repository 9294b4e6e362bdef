"""Trained policies as data: the numpy actor, its file format and the ``ppo:`` bot.

Why a format of our own. Stable-Baselines3 saves a model as a ``.zip`` whose ``data`` entry holds
pickled Python objects; loading one runs whatever code the pickles name. Benchmark runs rate
agents other people send, so an agent file must be as safe to load as a table. An agent here is
two files side by side:

- ``<name>.npz``: the actor's weights as plain ``float32`` arrays (``hidden_<i>_weight`` [out, in],
  ``hidden_<i>_bias``   [out] per hidden layer, then ``action_weight`` and ``action_bias``), read
  with ``numpy.load(..., allow_pickle=False)``: an object array is refused, never unpickled;
- ``<name>.json``: what the arrays mean, checked field by field before any array is read:

  ====================  =======================================================================
  field                 meaning
  ====================  =======================================================================
  ``format``            ``"loco-envs-policy"``; ``format_version``: ``1``
  ``env_id``            the game (``loco_envs.available_envs()``)
  ``env_options``       the options of ``loco_envs.make`` it was trained with (``num_players`` ...)
  ``observation_size``  length of the observation vector: must equal that env's
  ``num_actions``       ``Discrete(n)`` of that env's action space
  ``layer_sizes``       widths of the hidden layers, e.g. ``[64, 64]``
  ``activation``        ``"tanh"`` or ``"relu"`` after each hidden layer
  ``obs_transform``     ``"none"`` or ``"log1p"`` applied to the observation first, optionally
                        with ``+<features>``: per-action features appended (:mod:`agents.features`)
  ``weights_sha256``    hash of the ``.npz``: a pair torn by a crash between the two writes is
                        refused instead of mixing old weights with new metadata
  ``provenance``        ``config``, ``seed``, ``decisions`` (trained on), ``evaluation`` (table)
  ====================  =======================================================================

:func:`save_policy` writes both files atomically (temporary file, then ``os.replace``);
:func:`load_policy` validates dtypes, shapes, finite values, sizes against the env's observation
and action spaces, JSON types and sizes, and raises ``ValueError`` naming the problem. Nothing
on the loading path imports torch: ``agents.make("ppo:<path>")`` needs numpy alone. The SB3
``.zip`` stays the trainer's business (``--resume`` of one's own runs); a ``ppo:`` spec never
opens one (``ppo:<name>.zip`` loads the data-only ``<name>.npz`` beside it).

Playing. :class:`NumpyPolicy` is the actor of a masked PPO policy as a few matrix products;
:meth:`NumpyPolicy.act_batch` decides for many games at once. Bots are handed a view, not a
vector, so :class:`PPOBot` encodes the view with the game's own ``observation.encode`` first, the
same vector the env's ``observe`` gives.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import os
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from loco_envs.agents.features import ACTION_FEATURES
from loco_envs.core.registry import GAMES

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "NumpyPolicy",
    "OBS_TRANSFORMS",
    "PPOBot",
    "check_temperature",
    "check_transform",
    "gumbel_noise",
    "linear_arrays",
    "load_bot",
    "load_policy",
    "policy_paths",
    "save_policy",
    "transform_bounds",
    "transform_extra_size",
    "transform_observation",
    "view_encoder",
]

FORMAT = "loco-envs-policy"
FORMAT_VERSION = 1

#: Elementwise observation transforms (counts such as a draw pile of 100 cards would swamp the
#: 0/1 entries).
_SCALES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "none": lambda x: x,
    "log1p": np.log1p,
}
#: Every ``obs_transform``: an elementwise one, optionally followed by ``+<features>``, a set of
#: per-action features appended to the network's input (:mod:`agents.features`, one game each).
OBS_TRANSFORMS: tuple[str, ...] = (*_SCALES, *(f"{scale}+{name}" for scale in _SCALES
                                                for name in ACTION_FEATURES))

_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}

# Bounds that keep a hostile file from costing unbounded memory or time before it is refused.
MAX_JSON_BYTES = 4 * 2**20
MAX_JSON_DEPTH = 32
MAX_HIDDEN_LAYERS = 16
MAX_LAYER_WIDTH = 8192
MAX_PARAMETERS = 64 * 2**20  # float32 weights: 256 MiB
_NPY_HEADER_ALLOWANCE = 4096  # per array: the .npy header and the zip entry around it

_FIELDS = ("format", "format_version", "env_id", "env_options", "observation_size",
           "num_actions", "layer_sizes", "activation", "obs_transform", "weights_sha256",
           "provenance")
#: Fields a file may leave out (files written before they existed); each defaults to false.
_OPTIONAL_FIELDS = ("feature_shortcut",)
_PROVENANCE_FIELDS = ("config", "seed", "decisions", "evaluation")


def transform_observation(obs: np.ndarray, transform: str) -> np.ndarray:
    """The network's input for a raw observation vector, or a batch ``[N, D]`` (float32).

    With action features the input is wider than the observation by
    :func:`transform_extra_size`: the features of the raw observation come after it.
    """
    scale, _, features = transform.partition("+")
    obs = np.asarray(obs, np.float32)
    scaled = _SCALES[scale](obs).astype(np.float32, copy=False)
    if not features:
        return scaled
    extra = ACTION_FEATURES[features].compute(obs.reshape(-1, obs.shape[-1]))
    return np.concatenate([scaled, extra.reshape(*obs.shape[:-1], -1)], axis=-1)


def transform_extra_size(transform: str) -> int:
    """How many entries ``transform`` appends to the observation (its action features)."""
    features = transform.partition("+")[2]
    return ACTION_FEATURES[features].size if features else 0


def transform_bounds(transform: str, low: np.ndarray,
                     high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry bounds of the network's input, from the raw observation's ``low``/``high``."""
    scale, _, features = transform.partition("+")
    low = transform_observation(np.asarray(low, np.float32), scale)
    high = transform_observation(np.asarray(high, np.float32), scale)
    if not features:
        return low, high
    extra = ACTION_FEATURES[features]
    return (np.concatenate([low, np.full(extra.size, -extra.limit, np.float32)]),
            np.concatenate([high, np.full(extra.size, extra.limit, np.float32)]))


def check_transform(transform: Any, env_id: str) -> None:
    """``ValueError`` unless ``transform`` is an ``obs_transform`` the game ``env_id`` takes."""
    if not isinstance(transform, str) or transform not in OBS_TRANSFORMS:
        raise ValueError(f"must be one of {list(OBS_TRANSFORMS)}, got {_short(transform)}")
    features = transform.partition("+")[2]
    if features and ACTION_FEATURES[features].env_id != env_id:
        raise ValueError(f"{transform!r}: the features {features!r} are for "
                         f"{ACTION_FEATURES[features].env_id}, not {_short(env_id)}")


def check_feature_shortcut(shortcut: Any, transform: str) -> None:
    """``ValueError`` unless ``shortcut`` is a bool, true only with action features."""
    if not isinstance(shortcut, bool):
        raise ValueError(f"must be true or false, got {_short(shortcut)}")
    if shortcut and not transform_extra_size(transform):
        raise ValueError(f"needs action features, and obs_transform {transform!r} has none")


@dataclass
class NumpyPolicy:
    """The actor of a masked PPO policy as plain arrays: hidden layers, then the action layer."""

    hidden: list[tuple[np.ndarray, np.ndarray]]  # (weight [out, in], bias [out]) per layer
    action: tuple[np.ndarray, np.ndarray]
    activation: str = "tanh"
    obs_transform: str = "log1p"
    #: The action layer also reads the action features themselves, after the last hidden
    #: layer (its weight is then [A, hidden + A * K]; the trainers' shortcut makes that part
    #: block-diagonal, :func:`expand_shortcut`): a move's logit weighs its own features
    #: directly instead of routing every action's facts through the hidden layers.
    feature_shortcut: bool = False

    @property
    def input_size(self) -> int:
        """Width of the network's input: the observation, then any action features."""
        first = self.hidden[0][0] if self.hidden else self.action[0]
        return int(first.shape[1])

    @property
    def observation_size(self) -> int:
        """Length of the raw observation the policy takes."""
        return self.input_size - transform_extra_size(self.obs_transform)

    @property
    def num_actions(self) -> int:
        return int(self.action[0].shape[0])

    @property
    def layer_sizes(self) -> list[int]:
        return [int(w.shape[0]) for w, _ in self.hidden]

    @classmethod
    def from_sb3(cls, policy: Any, obs_transform: str) -> NumpyPolicy:
        """Copy the actor of a ``MaskableActorCriticPolicy`` with an MLP extractor.

        The only method that touches torch (imported here, for the trainer); loading and playing
        never call it.
        """
        import torch.nn as nn
        from stable_baselines3.common.torch_layers import FlattenExtractor

        extractor = getattr(policy, "pi_features_extractor", policy.features_extractor)
        if not isinstance(extractor, FlattenExtractor):
            raise ValueError(f"only flat observations are supported, got {type(extractor)}")
        hidden: list[tuple[np.ndarray, np.ndarray]] = []
        activation = None
        names = {nn.Tanh: "tanh", nn.ReLU: "relu"}  # or subclasses (train.networks.Tanh)
        scores = getattr(policy.mlp_extractor, "scores", None)
        for module in policy.mlp_extractor.policy_net:
            name = next((n for kind, n in names.items() if isinstance(module, kind)), None)
            if isinstance(module, nn.Linear):
                hidden.append(linear_arrays(module))
            elif name is not None:
                if activation not in (None, name):
                    raise ValueError("mixed activations are not supported")
                activation = name
            else:
                raise ValueError(f"unsupported layer in the policy network: {module}")
        weight, bias = linear_arrays(policy.action_net)
        if scores is not None:
            weight = np.concatenate([weight, expand_shortcut(scores.effective())], axis=1)
        return cls(hidden, (weight, bias), activation or "tanh", obs_transform,
                   scores is not None)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits of one raw observation (or a batch of them, ``[N, D]``)."""
        return self.logits_of_inputs(transform_observation(obs, self.obs_transform))

    def logits_of_inputs(self, inputs: np.ndarray) -> np.ndarray:
        """:meth:`logits` from the network's input, ``transform_observation(obs,
        self.obs_transform)``: a caller deciding for several policies with one transform (the
        self-play env's snapshots) computes it once, which pays with action features."""
        x = inputs
        act = _ACTIVATIONS[self.activation]
        for weight, bias in self.hidden:
            x = act(x @ weight.T + bias)
        if self.feature_shortcut:
            extra = transform_extra_size(self.obs_transform)
            x = np.concatenate([x, inputs[..., inputs.shape[-1] - extra:]], axis=-1)
        weight, bias = self.action
        return x @ weight.T + bias

    def act_observation(self, obs: np.ndarray, action_mask: np.ndarray,
                        rng: np.random.Generator | None, temperature: float = 0.0) -> int:
        """The best legal action (``temperature`` 0, the default; ``rng`` unused), or one
        sampled with ``rng`` from the masked softmax of the logits over ``temperature`` (1: the
        policy PPO optimised; below 1: sharper)."""
        legal = np.asarray(action_mask, bool)
        if not legal.any():
            raise ValueError("the action mask has no legal action")
        logits = np.where(legal, self.logits(obs).astype(np.float64), -np.inf)
        return int(np.argmax(_perturbed(logits, rng, temperature)))

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator,
                  temperature: float = 1.0, inputs: np.ndarray | None = None) -> np.ndarray:
        """One action per row of ``obs`` ``[N, D]`` / ``masks`` ``[N, A]``, in one forward pass.

        Sampling draws ``rng.random((N, A))``: the same numbers, in the same order, as N calls
        of :meth:`act_observation` with that ``rng``, so batching a game's opponents does not
        change which moves they make. ``inputs``, when given, are the rows of ``obs`` already
        transformed (:meth:`logits_of_inputs`).
        """
        obs = np.asarray(obs, np.float32)
        legal = np.asarray(masks, bool)
        if obs.ndim != 2 or legal.ndim != 2 or obs.shape[0] != legal.shape[0]:
            raise ValueError(f"act_batch: obs {obs.shape} and masks {legal.shape} must be "
                             "[N, D] and [N, A] with the same N")
        if obs.shape[1] != self.observation_size or legal.shape[1] != self.num_actions:
            raise ValueError(f"act_batch: rows of size {obs.shape[1]} / {legal.shape[1]}, the "
                             f"policy takes {self.observation_size} / {self.num_actions}")
        empty = np.flatnonzero(~legal.any(axis=1))
        if empty.size:
            raise ValueError(f"act_batch: the action mask of row {int(empty[0])} has no legal "
                             "action")
        if inputs is not None and (inputs.ndim != 2 or inputs.shape[0] != obs.shape[0]
                                   or inputs.shape[1] != self.input_size):
            raise ValueError(f"act_batch: inputs {inputs.shape}, the policy takes "
                             f"[{obs.shape[0]}, {self.input_size}] (the rows of obs transformed)")
        raw = self.logits(obs) if inputs is None else self.logits_of_inputs(inputs)
        logits = np.where(legal, raw.astype(np.float64), -np.inf)
        return np.argmax(_perturbed(logits, rng, temperature),
                         axis=1).astype(np.int64)


def check_temperature(temperature: Any) -> float:
    """A sampling temperature: a finite number >= 0 (0: greedy); else ``ValueError``."""
    if isinstance(temperature, bool) or not isinstance(temperature, int | float) \
            or not 0 <= temperature < float("inf"):
        raise ValueError(f"temperature must be a finite number >= 0 (0: greedy), got "
                         f"{temperature!r}")
    return float(temperature)


def _perturbed(logits: np.ndarray, rng: np.random.Generator | None,
               temperature: float) -> np.ndarray:
    """Logits whose argmax is the move: with Gumbel noise added to ``logits / temperature``
    it is a draw from that softmax over the legal actions (Gumbel-max); greedy play
    (temperature 0) adds nothing and draws nothing from ``rng``."""
    if check_temperature(temperature) == 0:
        return logits
    return logits / temperature + gumbel_noise(rng.random(logits.shape))


def gumbel_noise(uniform: np.ndarray) -> np.ndarray:
    """Standard Gumbel noise from uniform draws in [0, 1) (the tournament's batched path draws
    each row from its own seat's generator, then calls this)."""
    return -np.log(-np.log(uniform + 1e-300) + 1e-300)


def linear_arrays(layer: Any) -> tuple[np.ndarray, np.ndarray]:
    """A torch ``nn.Linear``'s weight and bias as float32 numpy copies (the trainers' exports
    all go through this, so a policy file holds the same arrays whoever wrote it)."""
    return tuple(t.detach().cpu().numpy().astype(np.float32).copy()
                 for t in (layer.weight, layer.bias))


def expand_shortcut(scores: np.ndarray) -> np.ndarray:
    """``[A, K]`` per-action feature weights -> the ``[A, A * K]`` block of the action layer
    over the features (action ``a``'s row reads only its own K features)."""
    num_actions, k = scores.shape
    out = np.zeros((num_actions, num_actions, k), np.float32)
    out[np.arange(num_actions), np.arange(num_actions)] = scores
    return out.reshape(num_actions, num_actions * k)


def shortcut_scores(block: np.ndarray) -> np.ndarray:
    """Inverse of :func:`expand_shortcut`; ``ValueError`` when a row reads another action's
    features (a layer no trainer here makes)."""
    num_actions = block.shape[0]
    cube = block.reshape(num_actions, num_actions, -1)
    scores = cube[np.arange(num_actions), np.arange(num_actions)].copy()
    if not np.array_equal(expand_shortcut(scores), block):
        raise ValueError("the action layer's feature weights are not per action (block-diagonal)")
    return scores


def view_encoder(env_id: str) -> Callable[[Any], np.ndarray]:
    """``observation.encode`` of the game of ``env_id``: view -> the vector ``observe`` gives."""
    if env_id not in GAMES:
        raise ValueError(f"unknown env id {env_id!r}; known: {list(GAMES)}")
    return importlib.import_module(GAMES[env_id][0] + ".observation").encode


class PPOBot:
    """A trained policy behind the bot protocol (``act(view, action_mask, rng)``).

    By default it samples from the masked policy with the ``rng`` handed in: that is the policy
    PPO optimised (mixing matters with hidden cards), and it cannot lock a game into a loop,
    which a greedy LOCO policy can (always drawing, say). ``temperature`` below 1 samples from
    a sharper softmax (the logits over it): most of a trained policy's remaining mistakes are
    unlikely moves it still draws now and then, and a little noise still breaks loops;
    ``temperature=0`` plays the most likely legal action. ``act_observation`` skips the
    encoding when the caller has the vector already (the self-play env does); ``act_batch``
    decides for many games at once.
    """

    def __init__(self, policy: NumpyPolicy, encode: Callable[[Any], np.ndarray], name: str,
                 temperature: float = 1.0):
        self.policy = policy
        self.encode = encode
        self.name = name
        self.temperature = check_temperature(temperature)

    def act(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return self.act_observation(self.encode(view), action_mask, rng)

    def act_observation(self, obs: np.ndarray, action_mask: np.ndarray,
                        rng: np.random.Generator) -> int:
        if obs.shape[-1] != self.policy.observation_size:
            raise ValueError(f"{self.name}: observation of size {obs.shape[-1]}, the policy was "
                             f"trained on size {self.policy.observation_size} (another player "
                             "count or game?)")
        return self.policy.act_observation(obs, action_mask, rng, self.temperature)

    def act_batch(self, obs: np.ndarray, masks: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        """:meth:`NumpyPolicy.act_batch` at this bot's temperature."""
        return self.policy.act_batch(obs, masks, rng, temperature=self.temperature)


# ---------------------------------------------------------------------------------------------
# Files
def policy_paths(path: str | Path) -> tuple[Path, Path]:
    """``(npz, json)`` of a policy given as ``name``, ``name.npz``, ``name.json`` or ``name.zip``.

    ``name.zip`` (a training checkpoint's name) means the data-only export beside it; the zip
    itself is never opened here.
    """
    if not isinstance(path, str | Path):
        raise ValueError(f"policy path must be a string or a Path, got {type(path).__name__}")
    if "\0" in str(path):
        raise ValueError("policy path contains a NUL character")
    path = Path(path)
    base = path.with_suffix("") if path.suffix in (".npz", ".json", ".zip") else path
    return base.with_name(base.name + ".npz"), base.with_name(base.name + ".json")


def save_policy(path: str | Path, policy: NumpyPolicy, meta: dict[str, Any]) -> Path:
    """Write ``policy`` as ``<name>.npz`` + ``<name>.json``; return the ``.npz`` path.

    ``meta``: ``env_id`` and ``env_options`` (required), and any of ``config``, ``seed``,
    ``decisions`` and ``evaluation`` (the provenance). The document is checked by the same code
    that :func:`load_policy` runs, so a file this writes always loads. Each file goes to a
    temporary file in the same folder and is renamed over the old one (``os.replace``); the
    ``.npz`` first, then the ``.json`` naming its hash, so a crash between the two leaves a pair
    that :func:`load_policy` refuses rather than mixes.
    """
    npz_path, json_path = policy_paths(path)
    if not isinstance(meta, dict):
        raise ValueError(f"save_policy: meta must be a dict, got {type(meta).__name__}")
    unknown = set(meta) - {"env_id", "env_options", *_PROVENANCE_FIELDS}
    if unknown:
        raise ValueError(f"save_policy: unknown meta field(s) {sorted(unknown)}")
    arrays = _policy_arrays(policy)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    weights = buffer.getvalue()
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "env_id": meta.get("env_id"),
        "env_options": meta.get("env_options"),
        "observation_size": policy.observation_size,
        "num_actions": policy.num_actions,
        "layer_sizes": policy.layer_sizes,
        "activation": policy.activation,
        "obs_transform": policy.obs_transform,
        "feature_shortcut": policy.feature_shortcut,
        "weights_sha256": hashlib.sha256(weights).hexdigest(),
        "provenance": {key: meta.get(key) for key in _PROVENANCE_FIELDS},
    }
    text = json.dumps(doc, indent=2, allow_nan=False) + "\n"
    _check_document(json.loads(text), json_path)
    for name, array in arrays.items():
        _check_array_values(name, array, npz_path)
    npz_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(npz_path, weights)
    atomic_write_bytes(json_path, text.encode())
    return npz_path


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """``path`` holds either its old content or all of ``data``, whatever happens meanwhile."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _policy_arrays(policy: NumpyPolicy) -> dict[str, np.ndarray]:
    if not isinstance(policy, NumpyPolicy):
        raise ValueError(f"save_policy: expected a NumpyPolicy, got {type(policy).__name__}")
    arrays = {}
    for i, (weight, bias) in enumerate(policy.hidden):
        arrays[f"hidden_{i}_weight"] = np.ascontiguousarray(weight, np.float32)
        arrays[f"hidden_{i}_bias"] = np.ascontiguousarray(bias, np.float32)
    arrays["action_weight"] = np.ascontiguousarray(policy.action[0], np.float32)
    arrays["action_bias"] = np.ascontiguousarray(policy.action[1], np.float32)
    return arrays


_CACHE: dict[tuple, tuple[NumpyPolicy, dict[str, Any]]] = {}


def load_policy(path: str | Path) -> tuple[NumpyPolicy, dict[str, Any]]:
    """The policy saved at ``path`` and its JSON document (cached per file, per process).

    ``ValueError`` naming the file and the field for anything missing, malformed, of the wrong
    type, dtype or shape, not finite, too large, or not matching the env it names.
    """
    npz_path, json_path = policy_paths(path)
    try:
        key = (str(npz_path.resolve()), _stamp(npz_path), str(json_path.resolve()),
               _stamp(json_path))
    except OSError as exc:
        raise ValueError(f"policy {npz_path}: cannot be read ({exc.strerror or exc})") from None
    if key not in _CACHE:
        doc = _read_document(npz_path, json_path)
        _CACHE[key] = (_read_weights(npz_path, doc), doc)
    return _CACHE[key]


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_mtime_ns, st.st_size


def load_bot(path: str | Path, temperature: float = 1.0) -> PPOBot:
    """``agents.make("ppo:<path>")``: the saved policy playing from views (sampling at
    ``temperature``, 0: greedy)."""
    policy, doc = load_policy(path)
    return PPOBot(policy, view_encoder(doc["env_id"]), f"ppo:{path}", temperature)


# ---------------------------------------------------------------------------------------------
# Validation
def _read_document(npz_path: Path, json_path: Path) -> dict[str, Any]:
    if not json_path.is_file():
        sb3 = npz_path.with_suffix(".zip")
        hint = (f" ({sb3.name} beside it is a Stable-Baselines3 checkpoint, which runs code when "
                "loaded: it is only for --resume of one's own training runs)"
                if sb3.is_file() else "")
        raise ValueError(f"policy {json_path}: file does not exist{hint}")
    if json_path.stat().st_size > MAX_JSON_BYTES:
        raise ValueError(f"policy {json_path}: larger than {MAX_JSON_BYTES} bytes")
    try:
        text = json_path.read_bytes().decode("utf-8")
        doc = json.loads(text, parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise ValueError(f"policy {json_path}: not UTF-8 text") from None
    except RecursionError:
        raise ValueError(f"policy {json_path}: JSON nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"policy {json_path}: not valid JSON ({exc})") from None
    _check_document(doc, json_path)
    return doc


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def _fail(where: Path, name: str, problem: str) -> None:
    raise ValueError(f"policy {where}: field {name!r} {problem}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_document(doc: Any, where: Path) -> None:
    """Every field of the JSON document, its type and range, and the env's sizes."""
    if not isinstance(doc, dict):
        raise ValueError(f"policy {where}: the JSON document must be an object, "
                         f"got {type(doc).__name__}")
    if doc.get("format") != FORMAT:
        _fail(where, "format", f"must be {FORMAT!r}, got {_short(doc.get('format'))} (not a "
              "data-only policy file; a Stable-Baselines3 checkpoint is never loaded as an agent)")
    for name in _FIELDS:
        if name not in doc:
            _fail(where, name, "is missing")
    extra = sorted(set(doc) - set(_FIELDS) - set(_OPTIONAL_FIELDS))
    if extra:
        _fail(where, extra[0], f"is not part of {FORMAT} (fields: "
              f"{[*_FIELDS, *_OPTIONAL_FIELDS]})")
    if doc["format_version"] != FORMAT_VERSION or not _is_int(doc["format_version"]):
        _fail(where, "format_version", f"must be {FORMAT_VERSION}, got "
              f"{_short(doc['format_version'])}")
    if not isinstance(doc["activation"], str) or doc["activation"] not in _ACTIVATIONS:
        _fail(where, "activation", f"must be one of {list(_ACTIVATIONS)}, got "
              f"{_short(doc['activation'])}")
    try:
        check_transform(doc["obs_transform"], doc["env_id"])
    except ValueError as exc:
        _fail(where, "obs_transform", str(exc))
    try:
        check_feature_shortcut(doc.get("feature_shortcut", False), doc["obs_transform"])
    except ValueError as exc:
        _fail(where, "feature_shortcut", str(exc))
    digest = doc["weights_sha256"]
    if not (isinstance(digest, str) and len(digest) == 64
            and all(c in "0123456789abcdef" for c in digest)):
        _fail(where, "weights_sha256", "must be 64 lowercase hex digits")
    _check_layer_sizes(doc, where)
    _check_provenance(doc["provenance"], where)
    _check_env(doc, where)


def _check_layer_sizes(doc: dict[str, Any], where: Path) -> None:
    sizes = doc["layer_sizes"]
    if not isinstance(sizes, list) or len(sizes) > MAX_HIDDEN_LAYERS:
        _fail(where, "layer_sizes", f"must be a list of at most {MAX_HIDDEN_LAYERS} widths")
    for width in sizes:
        if not _is_int(width) or not 1 <= width <= MAX_LAYER_WIDTH:
            _fail(where, "layer_sizes", f"widths must be integers in 1..{MAX_LAYER_WIDTH}, got "
                  f"{_short(width)}")
    for name in ("observation_size", "num_actions"):
        if not _is_int(doc[name]) or not 1 <= doc[name] <= 2**20:
            _fail(where, name, f"must be a positive integer, got {_short(doc[name])}")
    if sum(n for _, n in _array_shapes(doc).values()) > MAX_PARAMETERS:
        _fail(where, "layer_sizes", f"give more than {MAX_PARAMETERS} parameters")


def _check_provenance(prov: Any, where: Path) -> None:
    if not isinstance(prov, dict):
        _fail(where, "provenance", f"must be an object, got {type(prov).__name__}")
    extra = sorted(set(prov) - set(_PROVENANCE_FIELDS))
    if extra:
        _fail(where, f"provenance.{extra[0]}", f"is unknown (fields: {list(_PROVENANCE_FIELDS)})")
    config, seed, decisions = prov.get("config"), prov.get("seed"), prov.get("decisions")
    if config is not None and not isinstance(config, dict):
        _fail(where, "provenance.config", f"must be an object or null, got {_short(config)}")
    for name, value in (("seed", seed), ("decisions", decisions)):
        if value is not None and (not _is_int(value) or not 0 <= value < 2**63):
            _fail(where, f"provenance.{name}", f"must be a non-negative integer or null, got "
                  f"{_short(value)}")
    for name in ("config", "evaluation"):
        if _depth(prov.get(name)) > MAX_JSON_DEPTH:
            _fail(where, f"provenance.{name}", f"is nested deeper than {MAX_JSON_DEPTH}")


def _depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value, without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return deepest


def _check_env(doc: dict[str, Any], where: Path) -> None:
    """The env the policy names exists, takes its options, and has the policy's sizes."""
    import loco_envs

    env_id, options = doc["env_id"], doc["env_options"]
    if not isinstance(env_id, str) or env_id not in loco_envs.available_envs():
        _fail(where, "env_id", f"must be one of {loco_envs.available_envs()}, got "
              f"{_short(env_id)}")
    if not isinstance(options, dict) or _depth(options) > 2:
        _fail(where, "env_options", f"must be an object of options, got {_short(options)}")
    if "render_mode" in options or "wrapped" in options:
        _fail(where, "env_options", "may not set render_mode or wrapped")
    try:
        env = loco_envs.make(env_id, wrapped=False, **options)
    except (ValueError, TypeError) as exc:
        _fail(where, "env_options", f"are not accepted by {env_id}: {exc}")
    agent = env.possible_agents[0]
    obs_size = int(env.observation_space(agent)["observation"].shape[0])
    num_actions = int(env.action_space(agent).n)
    if doc["observation_size"] != obs_size:
        _fail(where, "observation_size", f"is {doc['observation_size']}, but {env_id} with "
              f"{options} observes {obs_size} numbers")
    if doc["num_actions"] != num_actions:
        _fail(where, "num_actions", f"is {doc['num_actions']}, but {env_id} with {options} has "
              f"{num_actions} actions")


def _array_shapes(doc: dict[str, Any]) -> dict[str, tuple[tuple[int, ...], int]]:
    """Array name -> (shape, number of entries) the document promises."""
    widths = [doc["observation_size"] + transform_extra_size(doc["obs_transform"]),
              *doc["layer_sizes"], doc["num_actions"]]
    names = [f"hidden_{i}" for i in range(len(doc["layer_sizes"]))] + ["action"]
    shapes = {}
    for name, (fan_in, fan_out) in zip(names, pairwise(widths), strict=True):
        if name == "action" and doc.get("feature_shortcut", False):
            fan_in += transform_extra_size(doc["obs_transform"])
        shapes[f"{name}_weight"] = ((fan_out, fan_in), fan_out * fan_in)
        shapes[f"{name}_bias"] = ((fan_out,), fan_out)
    return shapes


def _read_weights(npz_path: Path, doc: dict[str, Any]) -> NumpyPolicy:
    """The arrays, after the zip's names, sizes and every ``.npy`` header are checked."""
    shapes = _array_shapes(doc)
    limit = sum(4 * n + _NPY_HEADER_ALLOWANCE for _, n in shapes.values())
    try:
        size = npz_path.stat().st_size
        if size > limit:
            raise ValueError(f"policy {npz_path}: {size} bytes, more than the {limit} its "
                             "layer sizes need")
        data = npz_path.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"policy {npz_path}: file does not exist") from None
    except OSError as exc:
        raise ValueError(f"policy {npz_path}: cannot be read ({exc.strerror or exc})") from None
    if hashlib.sha256(data).hexdigest() != doc["weights_sha256"]:
        raise ValueError(f"policy {npz_path}: its hash is not the weights_sha256 of "
                         f"{npz_path.with_suffix('.json').name} (files from different saves?)")
    try:
        _check_archive(data, shapes, npz_path)
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in shapes}
    except ValueError as exc:
        raise ValueError(f"policy {npz_path}: {exc}") from None
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as exc:
        raise ValueError(f"policy {npz_path}: not a readable .npz ({exc})") from None
    for name, array in arrays.items():
        if array.dtype != np.float32 or array.shape != shapes[name][0]:
            raise ValueError(f"policy {npz_path}: array {name!r} changed while read")
        _check_array_values(name, array, npz_path)
    hidden = [(arrays[f"hidden_{i}_weight"], arrays[f"hidden_{i}_bias"])
              for i in range(len(doc["layer_sizes"]))]
    return NumpyPolicy(hidden, (arrays["action_weight"], arrays["action_bias"]),
                       doc["activation"], doc["obs_transform"],
                       doc.get("feature_shortcut", False))


def _check_archive(data: bytes, shapes: dict[str, tuple[tuple[int, ...], int]],
                   where: Path) -> None:
    """Exactly the expected ``.npy`` entries, each float32 of its shape, before any is read."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        expected = sorted(f"{name}.npy" for name in shapes)
        if sorted(names) != expected:
            missing = sorted(set(expected) - set(names))
            what = (f"is missing array {missing[0][:-4]!r}" if missing
                    else f"has entries {sorted(set(names) - set(expected))[:3]} besides "
                    "the arrays (or twice)")
            raise ValueError(f"the archive {what}")
        for info in archive.infolist():
            name = info.filename[:-4]
            shape, count = shapes[name]
            if info.file_size > 4 * count + _NPY_HEADER_ALLOWANCE:
                raise ValueError(f"array {name!r}: entry of {info.file_size} bytes, too large "
                                 f"for shape {shape}")
            with archive.open(info) as handle:
                version = np.lib.format.read_magic(handle)
                if version == (1, 0):
                    header = np.lib.format.read_array_header_1_0(handle)
                elif version == (2, 0):
                    header = np.lib.format.read_array_header_2_0(handle)
                else:
                    raise ValueError(f"array {name!r}: .npy format {version} is not supported")
            got_shape, fortran, dtype = header
            if dtype != np.dtype("<f4"):
                raise ValueError(f"array {name!r}: dtype {dtype}, expected float32 ('<f4')")
            if tuple(got_shape) != shape:
                raise ValueError(f"array {name!r}: shape {tuple(got_shape)}, expected {shape} "
                                 "from the layer sizes")
            if fortran:
                raise ValueError(f"array {name!r}: Fortran order is not supported")


def _check_array_values(name: str, array: np.ndarray, where: Path) -> None:
    if not np.isfinite(array).all():
        raise ValueError(f"policy {where}: array {name!r} has NaN or infinite values")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

