"""Sign-in with brute-force protection: failed attempts are counted per account name
and per client address (questworlds_site/throttle.py, shared by every process); once
either is used up, even the right password waits, and the form says for how long."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpResponse

from questworlds_site import throttle

REFUSED = (
    "Too many failed sign-ins for this account or from this address. "
    "Try again in {wait}; nothing was checked."
)


class ThrottledLoginView(auth_views.LoginView):
    redirect_authenticated_user = True

    def _keys(self) -> list[tuple[str, str]]:
        name = str(self.request.POST.get("username", ""))[:150].strip().lower()
        address = throttle.client_address(self.request)
        return [
            (settings.LOGIN_FAILURE_LIMIT, f"login:name:{name}"),
            (settings.LOGIN_ADDRESS_FAILURE_LIMIT, f"login:address:{address}"),
        ]

    def post(self, request, *args, **kwargs) -> HttpResponse:
        for rate, key in self._keys():
            refusal = throttle.blocked(rate, key, REFUSED)
            if refusal is not None:
                # An unbound form: the password is not even checked.
                name = str(request.POST.get("username", ""))[:150]
                form = self.get_form_class()(request, initial={"username": name})
                form.cleaned_data = {}  # an unbound form has none; add_error reads it
                form.add_error(None, refusal.message)
                response = self.render_to_response(self.get_context_data(form=form))
                response.status_code = 429
                response["Retry-After"] = str(refusal.retry_after)
                return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form) -> HttpResponse:
        for rate, key in self._keys():
            throttle.hit(rate, key, REFUSED)
        response = super().form_invalid(form)
        response.status_code = 400
        return response

    def form_valid(self, form) -> HttpResponse:
        name_rate, name_key = self._keys()[0]
        throttle.clear(name_rate, name_key)
        return super().form_valid(form)
