# A configuration with nothing in it: valid, with a warning.
