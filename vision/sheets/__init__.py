"""What is printed: the sheet's geometry and tag table (``layout``), drawing and printing it
(``render``), a players' own board fitted from one picture (``geometry``), and DRIFT's turning
river rings (``annuli``). Imports only :mod:`vision.pieces`."""
