"""Text for `/spades help` and `/spades rules`: how to play here, and the rules in force."""

from __future__ import annotations

from bot.discord_ui.table.house_text import HOUSE_OPTIONS, house_rule_lines
from bot.discord_ui.table.modes_text import deal_text, not_in_mode
from bot.discord_ui.table.render import MODE_ONLY, MODE_OPTIONS, option_value
from bot.discord_ui.text import MESSAGE_LIMIT, MODE_TITLES, number
from bot.engine import OPTIONS, Mode, Rules

HELP_TEXT = """\
## ♠ Spades here
**Start:** `/spades new` opens a game in this channel (cutthroat: 3 players, each for themselves). \
Others press **Join**; the host can **Add bot** for empty seats, then **Start**.
**Play:** press **My hand** on the table: your private panel shows your cards and stays up to date. \
On your turn your legal cards (or the bids) light up: one click plays. You also get your hand by \
direct message. If you're slow, I'll mention you once.
**Score:** make your bid (10 a trick, +1 a bag), or lose 10 a trick. Nil: take no trick for +100. \
Too many bags cost points. First to the target wins.
**House rules:** `/spades new rules:` takes a preset (Whiz, Suicide, Short game…) or pairs like \
`overtricks=none`; `/spades rules` says what is in force.
**Help:** in a game with a computer player, **Hint** on your panel shows what the hard computer \
player would do, and why; after a game, `/spades review` goes over your bids and costliest plays.
**Seasons:** admins run `/spades season start` (or a monthly rhythm in `/spades settings`); everyone \
starts a season fresh, `/spades leaderboard` shows it (or `season: all time`), and its end posts a podium.
**Tournaments:** `/spades tournament new` (Manage Server) opens a Swiss tournament here; players press \
**Join**, each round's tables play in their own threads, and I post the standings, seat the next round \
and post the podium myself.
**Commands:** `/spades new` · `join` · `leave` · `addbot` · `start` · `hand` · `bid` · `draw` · `pass` · \
`play` · `table` · `score` · `rules` · `record` · `review` · `leaderboard` · `stats` · `season` · `tournament` · \
`cancel` · `settings` (Manage Server) · `help`"""


def rules_text(mode: Mode, rules: Rules, title: str) -> str:
    """The rules in force: the mode, how scoring works with these values, and only the options
    that apply to this mode."""
    deal = deal_text(mode, rules)
    set_penalty = "−10 a trick bid" if rules.set_penalty == "minus" else "0"
    bags = rules.overtricks == "bags"
    nil = (f"Nil (no tricks): +{rules.nil_value} made, {number(-rules.nil_value)} failed."
           if rules.nil else "Nil is off: the lowest bid is 1.")
    blind = (f" Blind nil (before seeing your cards, allowed {rules.blind_nil_deficit}+ points behind): "
             f"±{rules.blind_nil_value}." if rules.blind_nil and rules.nil and not mode.draws else "")
    lines = [
        f"**{title}**",
        f"**{MODE_TITLES[mode]}** — {deal}. Spades are trump; follow suit if you can"
        + ("; spades can't be led until broken." if rules.spades_must_break else "."),
        f"**Scoring:** make your bid: +10 a trick bid{', +1 for each extra trick (a bag)' if bags else ''}. "
        f"Set: {set_penalty}. {nil}{blind}",
        f"**Bags:** every {rules.bag_limit} bags cost {rules.bag_penalty} points." if bags else "**Bags:** none.",
        f"**Winning:** first to **{rules.target}**; a tie for the lead plays another hand."
        + (f" The game also ends when someone falls to {number(-rules.mercy)}." if rules.mercy else ""),
    ]
    if mode is Mode.PARTNERS:
        lines.append("Partners: the team's bids add up to one contract; a nil bidder is scored alone.")
    elif mode is Mode.SIX and rules.teams != "solo":
        lines.append("Teams: a team's bids add up to one contract; a nil bidder is scored alone; "
                     "team-mates share points and bags.")
    if rules.no_exact_total:
        lines.append("The last bidder may not make the bids add up to the number of tricks.")
    house = house_rule_lines(rules)
    lines += ["**House rules:**", *house] if house else []
    shown_options = [(name, option) for name, option in OPTIONS.items() if name != "target" and name not in
                     HOUSE_OPTIONS and (name not in MODE_ONLY or name in MODE_OPTIONS[mode])
                     and not not_in_mode(mode, name)]
    if house:  # the house rules' lines take the room the options' explanations had
        compact = "**Options:** " + " · ".join(f"`{n}`={option_value(getattr(rules, n))}" for n, _ in shown_options)
        if len("\n".join(lines)) + 1 + len(compact) > MESSAGE_LIMIT:  # many house rules: the changed ones only
            standard = Rules()
            changed = [f"`{n}`={option_value(getattr(rules, n))}" for n, _ in shown_options
                       if getattr(rules, n) != getattr(standard, n)]
            compact = (f"**Options** (the others standard): {' · '.join(changed)}" if changed
                       else "**Options:** standard")
        lines.append(compact)
    else:
        lines.append("**Options:**")
        lines += [f"• `{name}` = {option_value(getattr(rules, name))} — {option.help}"
                  for name, option in shown_options]
    return "\n".join(lines)
