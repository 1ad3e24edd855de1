from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "questworlds_site.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        # Before any URLconf is read: the routes' <id:...> (questworlds_site/inputs.py).
        from questworlds_site.inputs import register_converters

        register_converters()
