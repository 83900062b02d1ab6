"""kep-sync: keep a Kubernetes KEP tracking wiki matrix true to kubernetes/enhancements."""

__version__ = "0.1.0"
