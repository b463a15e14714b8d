"""Formal models: the game (``game``) and each edition's clause encodings."""
