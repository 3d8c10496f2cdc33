/// Virtual readers and cards.
