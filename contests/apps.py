from django.apps import AppConfig


class ContestsConfig(AppConfig):
    name = "contests"
    verbose_name = "Contests and the live table"
