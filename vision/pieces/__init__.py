"""What the pieces are in the real world: each game's piece set (shape, footprint, height;
``piecesets/<game>.json``) and the shape of Gygès's rings without stickers. Imports nothing
else of ``vision``."""
