from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, JsonResponse


@login_not_required
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for docker compose and load balancers: the app answers and the DB does."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
