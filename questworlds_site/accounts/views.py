from typing import cast

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from .forms import ProfileForm, SignupForm
from .models import User
from .services import user_update_display_name


@login_not_required
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.shown_name}! Your account is ready.")
        return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "registration/signup.html", {"form": form}, status=status)


def profile(request: HttpRequest) -> HttpResponse:
    # Signed in: LoginRequiredMiddleware turns anonymous visitors away (this module
    # cannot use questworlds_site.requests, which imports accounts.models).
    user = cast(User, request.user)
    form = ProfileForm(request.POST or None, instance=user)
    if request.method == "POST" and form.is_valid():
        user_update_display_name(user=user, display_name=form.cleaned_data["display_name"])
        messages.success(request, "Your display name is saved.")
        return redirect("profile")
    status = 400 if form.errors else 200
    return render(request, "registration/profile.html", {"form": form}, status=status)


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's, answering 400 when the form comes back with its errors."""

    success_url = "/accounts/password/done/"

    def form_invalid(self, form) -> HttpResponse:
        response = super().form_invalid(form)
        response.status_code = 400
        return response
