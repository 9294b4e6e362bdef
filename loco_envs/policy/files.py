"""Trained policies as data: the file format, its checks, the loader and the writer.

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
                        with ``+<features>``: per-action features appended
                        (:mod:`loco_envs.core.features`)
  ``feature_shortcut``  optional, default false: the action layer also reads the action
                        features (its weight is ``[A, H + A * K]``, block-diagonal over them)
  ``action_scorer``     optional, default 0: the hidden width ``h`` of a scorer shared by
                        every action (arrays ``scorer_feature_weight`` [h, K],
                        ``scorer_state_weight`` [h, H], ``scorer_bias`` and ``scorer_out``
                        [h]); the hidden layers then read the observation without the features
                        (:class:`~loco_envs.policy.NumpyPolicy`)
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

The actor itself is :class:`loco_envs.policy.NumpyPolicy` (numpy only); the ``ppo:`` bot that
plays a loaded policy from views is :class:`agents.ppo.PPOBot`, and the trainers' exports from
torch go through :mod:`train.export`.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from loco_envs.core.files import atomic_write_bytes
from loco_envs.policy.network import ACTIVATIONS, NumpyPolicy
from loco_envs.policy.transforms import (
    check_action_scorer,
    check_feature_shortcut,
    check_transform,
    transform_extra_size,
)

__all__ = ["FORMAT", "FORMAT_VERSION", "load_policy", "policy_paths", "save_policy"]

FORMAT = "loco-envs-policy"
FORMAT_VERSION = 1

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
_OPTIONAL_FIELDS = ("feature_shortcut", "action_scorer")
#: The action scorer's arrays, in :attr:`NumpyPolicy.scorer`'s order.
_SCORER_ARRAYS = ("scorer_feature_weight", "scorer_state_weight", "scorer_bias", "scorer_out")
_PROVENANCE_FIELDS = ("config", "seed", "decisions", "evaluation")


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
        **({"action_scorer": int(policy.scorer[0].shape[0])} if policy.scorer is not None else {}),
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


def _policy_arrays(policy: NumpyPolicy) -> dict[str, np.ndarray]:
    if not isinstance(policy, NumpyPolicy):
        raise ValueError(f"save_policy: expected a NumpyPolicy, got {type(policy).__name__}")
    arrays = {}
    for i, (weight, bias) in enumerate(policy.hidden):
        arrays[f"hidden_{i}_weight"] = np.ascontiguousarray(weight, np.float32)
        arrays[f"hidden_{i}_bias"] = np.ascontiguousarray(bias, np.float32)
    arrays["action_weight"] = np.ascontiguousarray(policy.action[0], np.float32)
    arrays["action_bias"] = np.ascontiguousarray(policy.action[1], np.float32)
    for name, array in zip(_SCORER_ARRAYS, policy.scorer or (), strict=False):
        arrays[name] = np.ascontiguousarray(array, np.float32)
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
    if not isinstance(doc["activation"], str) or doc["activation"] not in ACTIVATIONS:
        _fail(where, "activation", f"must be one of {list(ACTIVATIONS)}, got "
              f"{_short(doc['activation'])}")
    try:
        check_transform(doc["obs_transform"], doc["env_id"])
    except ValueError as exc:
        _fail(where, "obs_transform", str(exc))
    try:
        check_feature_shortcut(doc.get("feature_shortcut", False), doc["obs_transform"])
    except ValueError as exc:
        _fail(where, "feature_shortcut", str(exc))
    try:
        check_action_scorer(doc.get("action_scorer", 0), doc["obs_transform"])
    except ValueError as exc:
        _fail(where, "action_scorer", str(exc))
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
    extra = transform_extra_size(doc["obs_transform"])
    scorer = doc.get("action_scorer", 0)
    inputs = doc["observation_size"] + (0 if scorer else extra)  # the scorer reads the features
    widths = [inputs, *doc["layer_sizes"], doc["num_actions"]]
    names = [f"hidden_{i}" for i in range(len(doc["layer_sizes"]))] + ["action"]
    shapes = {}
    for name, (fan_in, fan_out) in zip(names, pairwise(widths), strict=True):
        if name == "action" and doc.get("feature_shortcut", False):
            fan_in += extra
        shapes[f"{name}_weight"] = ((fan_out, fan_in), fan_out * fan_in)
        shapes[f"{name}_bias"] = ((fan_out,), fan_out)
    if scorer:
        k, state = extra // doc["num_actions"], widths[-2]
        for name, shape in zip(_SCORER_ARRAYS, ((scorer, k), (scorer, state), (scorer,),
                                                (scorer,)), strict=True):
            shapes[name] = (shape, int(np.prod(shape)))
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
    scorer = tuple(arrays[name] for name in _SCORER_ARRAYS) if doc.get("action_scorer") else None
    return NumpyPolicy(hidden, (arrays["action_weight"], arrays["action_bias"]),
                       doc["activation"], doc["obs_transform"],
                       doc.get("feature_shortcut", False), scorer)


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

