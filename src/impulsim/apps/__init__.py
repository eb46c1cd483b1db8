"""Applications built on impulsim, using the library as any user would (they import from the layers below;
nothing below imports them)."""
