"""People in the loop: the review and study pages, the review log and human accuracy."""
