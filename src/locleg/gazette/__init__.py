"""Official gazettes (Diários Oficiais): each gazette's text cut into the acts it publishes."""
