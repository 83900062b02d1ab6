"""The pull request label a human adds to make kep-sync regenerate its branch (a leaf module: the config
refuses it as one of the bot's own labels without loading the publishing code)."""

#: A pull request with this label gets a fresh commit from the base even over commits kep-sync did not make.
REGENERATE_LABEL = "kep-sync:regenerate"
