"""The games tableref referees, one module each."""
