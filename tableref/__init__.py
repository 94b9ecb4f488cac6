"""tableref: the referee service — sensors in, stable views, rulings and a game record out."""
