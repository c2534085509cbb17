"""The read-side domain: environments, dashboards, datasets, databases, SQL, permissions audit."""
