"""Photo editors: classical OpenCV ops (`classical`) and diffusion inpainting (`diffusers_editor`).

Both need the `edit` extra; nothing is imported here so that the core install stays light."""
