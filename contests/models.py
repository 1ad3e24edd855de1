from django.conf import settings
from django.db import models


class TablePresence(models.Model):
    """One open websocket at a campaign's table.

    Kept in the database (not process memory) so that every Daphne process behind the
    Redis channel layer reports the same people at the table.
    """

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="presences"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    channel_name = models.CharField(max_length=200, unique=True)
    role = models.CharField(max_length=10)
    connected_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["connected_at", "id"]
        indexes = [models.Index(fields=["campaign", "connected_at"])]

    def __str__(self) -> str:
        return f"{self.user} at {self.campaign} ({self.channel_name})"
