"""The command-line player's words for LOCO: the slap and Contre-LOCO races, calls, rounds."""

from __future__ import annotations

from typing import Any

from loco_envs.core.narration import Narrator
from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco.phases import PHASES


class LocoNarrator(Narrator):
    """LOCO: the slap and Contre-LOCO races, LOCO! calls, penalties, rounds."""

    def label(self, seat: int) -> str:
        return f"p{seat}"

    def situation(self, seat: int) -> str | None:
        v = self.env.view(seat)
        top = C.CODES[v.top]
        if v.phase == "turn":
            if v.pending:
                answer = (f"an identical {top} (stacking=identical)" if v.stacking == "identical"
                          else f"a {v.pending_kind}")
                return (f"A {v.pending_kind} penalty of {v.pending} cards is on you: answer it "
                        f"with {answer} (it grows and passes on), or draw all {v.pending}.")
            return (f"Your turn: play a card matching {top} (colour "
                    f"{C.COLOUR_NAMES[v.colour]}), or draw one.")
        if v.phase == "after_draw":
            if v.drawn is None:
                return "The draw pile is empty: pass."
            return f"You drew {C.CODES[v.drawn]}: play it now, or pass."
        if v.phase == "after_penalty":
            return "You took the penalty: now play a matching card, or pass."
        if v.phase == "colour":
            return f"You played {top}: name the colour that play goes on in."
        if v.phase == "target":
            many = f" ({v.swaps_left} swaps to name)" if v.swaps_left > 1 else ""
            return f"Swap: choose whose hand you take in exchange for yours{many}."
        if v.phase == "call":
            return ("You are down to ONE card! Call LOCO! now ('loco'), or stay 'silent' and "
                    "hope nobody shouts Contre-LOCO (if anyone does, you draw 2).")
        if v.phase == "contre":
            who = self.label(v.contre_caller)
            if v.contre_announced:
                return (f"{who} is down to one card and called LOCO!. Shouting 'contre' now is "
                        "a lost bet: every shouter draws 1. 'pass' lets it go.")
            return (f"{who} is down to one card and did NOT call LOCO! Shout 'contre' to make "
                    f"{who} draw 2, or 'pass'. (Everyone decides in secret.)")
        if v.phase == "slap":
            held = v.hand[v.top]
            copies = f" x{held}" if held > 1 else ""
            race = ("The first slap to arrive wins the race and counts as your own play; "
                    "'pass' lets it go.")
            if v.lander == seat:
                more = "another one" if held == 1 else f"{held} more"
                return f"You just played {top} and still hold {more}: slap it on too? {race}"
            if v.turn_seat == seat:
                return (f"{self.label(v.lander)} played {top} and it is your turn next - you hold "
                        f"{top}{copies}: slap it now to beat anyone else who slaps it (their "
                        "slap would take your turn), or 'pass' and play your turn as usual if "
                        "nobody does.")
            return f"{self.label(v.lander)} played {top} - you hold {top}{copies}: slap it? {race}"
        return None

    def hint(self, seat: int, action: int) -> str | None:
        if A.COLOUR0 <= action < A.COLOUR0 + 4:
            return C.COLOUR_NAMES[action - A.COLOUR0]
        if A.TARGET0 <= action < A.LOCO:
            v = self.env.view(seat)
            target = (seat + action - A.TARGET0 + 1) % v.num_players
            return f"{self.label(target)}, {v.hand_sizes[target]} cards"
        return None

    def _phase(self) -> str:
        # The engine's own phase: views hide a slap window from the seats not deciding (L-41),
        # and the loop must know a hidden choice is being made to keep it hidden.
        return PHASES[self.env.game.phase]

    def hidden(self) -> bool:
        return not self.env.game.terminal and self._phase() in ("slap", "contre")

    def announce_hidden(self, seat: int) -> str | None:
        # Everyone but the caller decides in a Contre-LOCO window, so saying that a seat has
        # decided gives nothing away; only the holders of the card are asked to slap.
        if self._phase() == "contre":
            return f"{self.label(seat)} has decided (hidden until everyone has)"
        return None

    def window_open(self) -> bool:
        window = self.env.state_dict()["window"]
        return window["kind"] is not None and bool(window["choices"])

    def snapshot(self) -> Any:
        v = self.env.view(0)
        return {"phase": self._phase(), "sizes": v.hand_sizes, "rounds_won": v.rounds_won,
                "caller": v.contre_caller, "announced": v.contre_announced}

    def reveal(self, person: int, before: Any, choices: list[tuple[int, int]]) -> list[str]:
        v = self.env.view(person)
        if before["phase"] == "contre":
            shouters = [s for s, a in choices if a == A.CONTRE]
            caller = self.label(before["caller"])
            if not shouters:
                return [f"Contre-LOCO: nobody shouts at {caller}."]
            names = ", ".join("you" if s == person else self.label(s) for s in shouters)
            drew = [f"{self.label(s)} +{v.hand_sizes[s] - before['sizes'][s]}"
                    for s in range(v.num_players) if v.hand_sizes[s] > before["sizes"][s]]
            outcome = ("a lost bet, shouters draw 1" if before["announced"]
                       else f"{caller} stayed silent and draws 2")
            cards = ", ".join(drew) or "no cards drawn"
            return [f"Contre-LOCO! shouted by {names}: {outcome} ({cards})."]
        slappers = [s for s, a in choices if a != A.PASS]
        if not slappers:
            return []
        winner = v.lander
        if v.rounds_won != before["rounds_won"]:  # the slap emptied a hand and ended the round
            winner = next(s for s in range(v.num_players)
                          if v.rounds_won[s] > before["rounds_won"][s])
        if winner == person:
            return ["Your slap lands!"]
        lines = [f"{self.label(winner)} slaps {C.CODES[v.top]} on top, first!"]
        if person in slappers:
            lines.append(f"{self.label(winner)} was faster: your slap did not land.")
        return lines

    def snapshot_events(self) -> Any:
        v = self.env.view(0)
        return v.round, v.rounds_won, v.scores, v.hand_sizes

    def detail(self, before: Any, seat: int, action: int) -> str:
        if action != A.DRAW:
            return ""
        drawn = self.env.view(0).hand_sizes[seat] - before[3][seat]
        return f" ({drawn} card{'' if drawn == 1 else 's'})" if drawn >= 0 else ""

    def events(self, before: Any) -> list[str]:
        v = self.env.view(0)
        round_before, won_before, scores_before, _ = before
        lines = [f"{self.label(s)} empties their hand and wins round {round_before} "
                 f"(+{v.scores[s] - scores_before[s]} points)."
                 for s in range(v.num_players) if v.rounds_won[s] > won_before[s]]
        if not lines and v.round != round_before:
            lines.append(f"Round {round_before} is over.")
        return lines
