"""The METG sweep: what it is (params.py: SweepParams, stored with the campaign), which sizes it
runs, the plan `--plan` picks (adaptive.py: against a noisy machine; bisect.py: a deterministic
campaign's bisection), the repetitions added near the crossing (settle.py), and the campaign that
runs it into the store, resumed, continued or created, and claimed (campaign.py)."""
