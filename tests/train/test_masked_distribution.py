"""The trainer's masked action distribution (train/networks.py, ``MaskedCategorical``): the
probabilities, log-probabilities, entropy and gradients of sb3-contrib's ``MaskableCategorical``
without exponentials of masked logits."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.distributions import MaskableCategorical  # noqa: E402

from loco_envs.train.networks import (  # noqa: E402
    ILLEGAL_LOG_PROB,
    MaskedCategorical,
    MaskedCategoricalDistribution,
    MaskedMlpPolicy,
    ShortcutPolicy,
)


def _batch(rows: int, actions: int, scale: float, legal_share: float, seed: int):
    gen = torch.Generator().manual_seed(seed)
    logits = (torch.randn(rows, actions, generator=gen) * scale).requires_grad_()
    legal = torch.rand(rows, actions, generator=gen) < legal_share
    legal[torch.arange(rows), torch.randint(actions, (rows,), generator=gen)] = True
    chosen = torch.multinomial(legal.float(), 1, generator=gen).squeeze(1)
    return logits, legal, chosen


@pytest.mark.parametrize("scale", [0.1, 1.0, 30.0])
@pytest.mark.parametrize("legal_share", [0.02, 0.5, 1.0])
def test_it_gives_sb3_contribs_values_and_gradients(scale, legal_share):
    logits, legal, chosen = _batch(256, 242, scale, legal_share, seed=int(scale * 10))
    ours, theirs = MaskedCategorical(logits, legal), MaskableCategorical(logits=logits,
                                                                         masks=legal)
    assert torch.allclose(ours.probs, theirs.probs, rtol=1e-5, atol=1e-6)
    assert (ours.probs[~legal] == 0).all()
    assert torch.allclose(ours.log_prob(chosen), theirs.log_prob(chosen), rtol=1e-5, atol=1e-4)
    assert torch.allclose(ours.entropy(), theirs.entropy(), rtol=1e-5, atol=1e-5)
    assert (ours.logits[~legal] == ILLEGAL_LOG_PROB).all()

    def gradient(dist):
        loss = -dist.log_prob(chosen).sum() - 0.01 * dist.entropy().sum()
        return torch.autograd.grad(loss, logits)[0]

    ours_grad, theirs_grad = gradient(ours), gradient(theirs)
    assert torch.allclose(ours_grad[legal], theirs_grad[legal], rtol=1e-4, atol=1e-5)
    # an illegal action's logit gets no gradient at all (sb3-contrib's gets rounding noise)
    assert (ours_grad[~legal] == 0).all()
    assert (theirs_grad[~legal].abs() < 1e-5).all()


def test_unmasking_restores_the_unmasked_distribution():
    logits, legal, _ = _batch(8, 12, 1.0, 0.3, seed=1)
    ours = MaskedCategorical(logits)
    unmasked = ours.probs.clone()
    assert torch.allclose(unmasked, torch.softmax(logits, dim=-1), atol=1e-6)
    ours.apply_masking(legal)
    assert (ours.probs[~legal] == 0).all()
    ours.apply_masking(None)
    assert ours.masks is None
    assert torch.allclose(ours.probs, unmasked)
    assert torch.allclose(ours.entropy(), MaskableCategorical(logits=logits).entropy(),
                          atol=1e-6)


def test_it_samples_sb3_contribs_actions_from_the_same_generator():
    """Same probabilities to rounding, same ``torch.multinomial`` draw: the same actions (what
    keeps a training run within rounding of sb3-contrib's)."""
    logits, legal, _ = _batch(512, 242, 3.0, 0.05, seed=4)
    draws = []
    for dist in (MaskedCategorical(logits, legal), MaskableCategorical(logits=logits,
                                                                      masks=legal)):
        torch.manual_seed(11)
        draws.append(torch.stack([dist.sample() for _ in range(20)]))
    assert torch.equal(draws[0], draws[1])
    assert legal.gather(1, draws[0].T).all()


def test_the_trainers_policies_use_it_and_fused_adam():
    from sb3_contrib import MaskablePPO

    from loco_envs.train.pool import OpponentPool
    from loco_envs.train.ppo import Args, policy_network
    from loco_envs.train.selfplay import SelfPlayVecEnv

    args = Args(env_id="moco_v0", num_players=2, net_arch=[16])
    policy_class, kwargs = policy_network(args)
    assert policy_class is MaskedMlpPolicy and issubclass(ShortcutPolicy, MaskedMlpPolicy)
    venv = SelfPlayVecEnv("moco_v0", 4, OpponentPool({"random": 1.0}, "moco_v0", 1),
                          {"num_players": 2})
    try:
        model = MaskablePPO(policy_class, venv, n_steps=8, batch_size=16, n_epochs=1,
                            seed=0, device="cpu", policy_kwargs=kwargs)
        assert isinstance(model.policy.action_dist, MaskedCategoricalDistribution)
        optimizer = model.policy.optimizer  # SB3's Adam and eps, fused
        assert isinstance(optimizer, torch.optim.Adam)
        assert optimizer.defaults["eps"] == 1e-5 and optimizer.defaults["fused"]
        model.learn(32)
        obs = venv.reset()
        masks = venv.action_masks()
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(4), actions].all()
    finally:
        venv.close()
