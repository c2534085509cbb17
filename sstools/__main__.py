from sstools.cli import app

app()
