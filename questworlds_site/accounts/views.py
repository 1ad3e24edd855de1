from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from .forms import ProfileForm, SignupForm
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
    return render(request, "registration/signup.html", {"form": form})


def profile(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        user_update_display_name(user=request.user, display_name=form.cleaned_data["display_name"])
        messages.success(request, "Your display name is saved.")
        return redirect("profile")
    return render(request, "registration/profile.html", {"form": form})
