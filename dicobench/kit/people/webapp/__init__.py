"""The local web app in which people review a build row by row or answer it under a time limit
(needs the `app` extra: Starlette and uvicorn)."""
