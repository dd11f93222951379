"""patchwitness: grade AI-written patches and refuse false greens."""

__version__ = "0.1.0"
