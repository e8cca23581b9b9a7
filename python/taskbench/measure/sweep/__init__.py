"""The METG sweep: what it is (params.py: SweepParams, stored with the campaign), which sizes it
runs (plan.py: the measured plan; bisect.py: a deterministic campaign's bisection), the
repetitions added near the crossing (settle.py), and the campaign that runs it into the store,
resumed, continued or created, and claimed (campaign.py)."""
