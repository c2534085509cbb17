"""Server-rendered pages with small vanilla JS modules: no build step, no CDN."""
