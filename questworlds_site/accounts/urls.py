from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.urls import path

from questworlds_site import throttle

from . import views
from .login import ThrottledLoginView

urlpatterns = [
    path(
        "signup/",
        throttle.limit_posts(
            "SIGNUP_LIMIT", "Too many sign-ups from this address: try again in {wait}."
        )(views.signup),
        name="signup",
    ),
    path("login/", login_not_required(ThrottledLoginView.as_view()), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("profile/", views.profile, name="profile"),
]
