from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "questworlds_site.accounts"
    label = "accounts"
    verbose_name = "Accounts"
