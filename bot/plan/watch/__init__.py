"""The watch of the release in progress: the judgement of each planned stage and its rendering."""
