"""``kep-sync serve``: the scheduler, one job, its state directory and ``kep-sync health``."""
