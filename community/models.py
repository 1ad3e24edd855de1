from django.db import models


class Community(models.Model):
    """A campaign's focal community (§8). The community issue adds its resources."""

    campaign = models.OneToOneField(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="community"
    )
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    interval_name = models.CharField(max_length=40, default="season")
    interval_number = models.PositiveIntegerField(default=1)

    class Meta:
        verbose_name_plural = "communities"

    def __str__(self) -> str:
        return self.name
